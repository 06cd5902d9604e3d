import { LIMITS } from '@vantage/shared-protocol';
import type { Logger } from 'pino';
import type { Outbox } from './outbox.js';

export interface SenderOptions {
  outbox: Outbox;
  /** Send one serialised `result.batch` frame on the current connection; false when there is none. */
  send: (frame: string) => boolean;
  log: Logger;
  /** Batches sent and not yet acked, at most (default 4). */
  max_in_flight?: number;
  /** Results per batch (default LIMITS.result_batch_max). */
  batch_max?: number;
  /** JSON text per batch, bytes; kept under LIMITS.ws_message_max_bytes (default 900 KiB). */
  batch_max_bytes?: number;
  /** A batch not acked within this is presumed lost: everything unacked is re-sent (default 60 s). */
  ack_timeout_ms?: number;
  /** After the control plane could not store a batch (e.g. its database is restarting), wait this long and re-send everything unacked (default 2 s). */
  retry_ms?: number;
}

interface InFlight {
  ids: string[];
  timer: NodeJS.Timeout;
}

/**
 * Streams the outbox to the control plane: `result.batch` messages oldest first,
 * at most `max_in_flight` unacked; `result.ack` deletes the acked ids. After a reconnect
 * ({@link OutboxSender.connected}) it starts again from the oldest unacked row, so everything not
 * acked is re-sent in order; the control plane stores idempotently (docs/architecture/node-agent.md, outbox and delivery).
 */
export class OutboxSender {
  readonly #o: Required<Omit<SenderOptions, 'log'>> & { log: Logger };
  #online = false;
  #cursor = 0;
  #next_batch_id = 1;
  readonly #in_flight = new Map<number, InFlight>();
  #scheduled = false;
  readonly #waiters = new Set<() => void>();
  #retry: NodeJS.Timeout | null = null;

  constructor(opts: SenderOptions) {
    this.#o = {
      max_in_flight: 4, batch_max: LIMITS.result_batch_max, batch_max_bytes: 900 * 1024, ack_timeout_ms: 60_000, retry_ms: 2000, ...opts,
    };
  }

  /** The link is up (after `welcome`): re-send from the oldest unacked result. */
  connected(): void {
    this.#online = true;
    this.#reset();
    this.pump();
  }

  /** The link is down: forget what was in flight (it will be re-sent on the next connect). */
  disconnected(): void {
    this.#online = false;
    this.#reset();
  }

  #reset(): void {
    if (this.#retry) clearTimeout(this.#retry);
    this.#retry = null;
    for (const b of this.#in_flight.values()) clearTimeout(b.timer);
    this.#in_flight.clear();
    this.#cursor = 0;
    this.#notify();
  }

  /** Send what can be sent, soon (coalesced into one pass per event-loop turn so batches fill up). */
  pump(): void {
    if (this.#scheduled || !this.#online) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#sendNow();
    });
  }

  #sendNow(): void {
    while (this.#online && this.#in_flight.size < this.#o.max_in_flight) {
      const rows = this.#o.outbox.readAfter(this.#cursor, this.#o.batch_max, this.#o.batch_max_bytes);
      if (rows.length === 0) break;
      const batch_id = this.#next_batch_id++;
      // Bodies are already JSON: splice them in instead of parsing and re-serialising.
      const frame = `{"type":"result.batch","batch_id":${batch_id},"results":[${rows.map((r) => r.body).join(',')}]}`;
      if (!this.#o.send(frame)) break;
      this.#cursor = rows[rows.length - 1]!.seq;
      const timer = setTimeout(() => this.#ackTimeout(batch_id), this.#o.ack_timeout_ms);
      timer.unref();
      this.#in_flight.set(batch_id, { ids: rows.map((r) => r.result_id), timer });
    }
    this.#notify();
  }

  #ackTimeout(batch_id: number): void {
    if (!this.#in_flight.has(batch_id)) return;
    this.#o.log.warn({ batch_id, ack_timeout_ms: this.#o.ack_timeout_ms }, 'result batch not acked in time; re-sending unacked results');
    this.#reset();
    this.pump();
  }

  /**
   * Handle `result.ack`: delete the acked ids and free the batch's slot. Ids of the batch that were
   * not acked stay in the outbox and go again after the next reconnect (or are dropped by age).
   */
  acked(batch_id: number, result_ids: readonly string[]): void {
    this.#o.outbox.ack(result_ids);
    const b = this.#in_flight.get(batch_id);
    if (b) {
      clearTimeout(b.timer);
      this.#in_flight.delete(batch_id);
    }
    this.pump();
    this.#notify();
  }

  /**
   * The control plane refused batch `batch_id` (an `error` with that ref): free its slot. With
   * `retry` (it could not store the batch now: INTERNAL_ERROR "resend later", e.g. its database is
   * restarting) everything unacked is re-sent after `retry_ms`, as after a reconnect; without it
   * (invalid results) the rows wait for the next reconnect. Without the retry, results refused
   * during a database outage sat in the outbox for as long as the link stayed up (test/faults
   * scenario 4).
   */
  refused(batch_id: number, retry = false): void {
    const b = this.#in_flight.get(batch_id);
    if (retry && !this.#retry && this.#online) {
      this.#retry = setTimeout(() => {
        this.#retry = null;
        this.#reset();
        this.pump();
      }, this.#o.retry_ms);
      this.#retry.unref();
    }
    if (!b) return;
    clearTimeout(b.timer);
    this.#in_flight.delete(batch_id);
    this.pump();
    this.#notify();
  }

  /** Batches sent and not acked. */
  get in_flight(): number {
    return this.#in_flight.size;
  }

  #notify(): void {
    for (const w of [...this.#waiters]) w();
  }

  /**
   * Wait until nothing is in flight and nothing more is waiting to go (all acked, or offline), or
   * `timeout_ms` passes. Used for the flush of a soft shutdown. @returns true when flushed.
   */
  flush(timeout_ms: number): Promise<boolean> {
    const done = () => !this.#online || (this.#in_flight.size === 0 && this.#o.outbox.stats().pending === 0);
    if (done()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const finish = (ok: boolean) => {
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve(ok);
      };
      const check = () => { if (done()) finish(true); };
      const timer = setTimeout(() => finish(done()), timeout_ms);
      this.#waiters.add(check);
      this.pump();
    });
  }
}
