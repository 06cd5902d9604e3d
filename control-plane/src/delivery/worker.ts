import type { Config } from '../config/index.js';
import type { Sql } from '../db/sql.js';
import type { Logger } from '../log.js';
import { claimDue, pruneFinished, releaseClaims, type ClaimedDelivery } from './deliveries.db.js';
import { createRecorder } from './recorder.js';
import { nextRetryDelayMs } from './schedule.js';
import { failure, type SendOutcome, type SenderRegistry } from './sender.js';
import type { WakeSignal } from './wake.js';

/** Deliveries claimed per query at most. */
const CLAIM_BATCH = 200;
/** Due rows (of destinations below their cap) a claim looks at, per delivery it may claim. */
const CLAIM_SCAN_FACTOR = 4;
/** Wait after a wake-up while attempts are under way, before claiming again, ms. */
const COALESCE_MS = 3;
/** How often finished deliveries past their retention are deleted. */
const PRUNE_EVERY_MS = 10 * 60 * 1000;

/** The delivery engine's worker on one instance. */
export interface DeliveryWorker {
  /** Release this instance's claims of a previous run, LISTEN (with a database server), start claiming. */
  start(): Promise<void>;
  /**
   * Stop claiming; give attempts under way `grace_ms` to finish, then abort the rest and release
   * their claims (they are retried at once by any instance, logged as interrupted).
   */
  stop(grace_ms?: number): Promise<void>;
  /** Attempts under way on this instance now. */
  inflight(): number;
}

/** What the worker runs on. `listen` is false in embedded mode (PGlite delivers no NOTIFY): poll only. */
export interface WorkerDeps {
  sql: Sql;
  log: Logger;
  config: Config;
  instance_id: string;
  senders: SenderRegistry;
  signal: WakeSignal;
  listen: boolean;
}

/**
 * The delivery worker (docs/architecture/delivery.md): claims due deliveries of the channels it
 * has senders for (claimDue: SKIP LOCKED, a lease, the per-destination cap), runs each through
 * its channel's sender with a deadline, and records the attempt: succeeded, retried on the
 * schedule with jitter, or failed. Woken by NOTIFY, by in-process wakes and by a poll every
 * `delivery_poll_interval_ms`; up to `delivery_max_inflight` attempts at once.
 * At-least-once: a claim is cleared only when its attempt is recorded, so an instance killed
 * mid-send leaves a lease that expires (or that it releases itself when it starts again under
 * the same instance id) and the message is sent again with the same message id.
 */
export function createDeliveryWorker(deps: WorkerDeps): DeliveryWorker {
  const { sql, config, senders, signal, instance_id } = deps;
  const log = deps.log.child({ module: 'delivery' });
  const channels = [...senders.keys()];
  const timeout_ms = config.delivery_timeout_ms;
  // The lease outlives the attempt's deadline and the time to record it, so a live instance never loses a claim.
  const lease_ms = timeout_ms * 2 + 10_000;
  const running = new Map<string, { abort: AbortController; done: Promise<void>; cut: boolean }>();
  let stopping = false;
  let loopDone: Promise<void> = Promise.resolve();
  let unlisten: (() => Promise<void>) | null = null;
  let pruneTimer: NodeJS.Timeout | null = null;
  const recorder = createRecorder(sql);

  async function attempt(row: ClaimedDelivery, entry: { abort: AbortController; cut: boolean }): Promise<void> {
    const sender = senders.get(row.channel)!;
    const number = row.attempts + 1;
    const started_at = new Date();
    const started = performance.now();
    const deadline = setTimeout(() => entry.abort.abort(new Error('attempt deadline')), timeout_ms + 1000);
    let outcome: SendOutcome;
    // The attempt ends when its signal fires even if a sender ignores it: nothing can hold a slot (or stop()) forever.
    const aborted = new Promise<SendOutcome>((resolve) => entry.abort.signal.addEventListener('abort', () => {
      const reason = entry.abort.signal.reason as Error | undefined;
      resolve(failure(`aborted: ${reason?.message ?? 'attempt cut short'}`, true, Math.round(performance.now() - started)));
    }, { once: true }));
    try {
      outcome = await Promise.race([sender.send(row, { signal: entry.abort.signal, log, attempt: number }), aborted]);
    } catch (err) {
      outcome = failure(`internal: ${(err as Error).message ?? String(err)}`, true);
    } finally {
      clearTimeout(deadline);
    }
    if (entry.cut) {
      // Cut short by stop(): not this receiver's fault; any instance retries it at once.
      await releaseClaims(sql, instance_id, [row.id]).catch((err: unknown) => log.warn({ err, delivery_id: row.id }, 'release failed; the lease will expire'));
      return;
    }
    const retry_in_ms = outcome.ok ? null : nextRetryDelayMs(row.retry_step, outcome.retriable, config.delivery_retry_delays_ms);
    const record = {
      id: row.id, instance_id, attempt: number, started_at,
      status_code: outcome.status_code, response_body: outcome.response_body,
      latency_ms: outcome.latency_ms ?? Math.round(performance.now() - started),
      error: outcome.ok ? null : outcome.error,
      outcome: outcome.ok ? 'succeeded' as const : 'failed' as const, retry_in_ms,
    };
    try {
      await recorder.record(record);
    } catch (err) {
      log.error({ err, delivery_id: row.id }, 'could not record a delivery attempt; the lease will expire and it is sent again');
      return;
    }
    if (!outcome.ok) {
      log[retry_in_ms === null ? 'warn' : 'debug']({ delivery_id: row.id, channel: row.channel, attempt: number, error: outcome.error, status_code: outcome.status_code, retry_in_ms }, retry_in_ms === null ? 'delivery failed' : 'delivery attempt failed');
    }
  }

  function launch(row: ClaimedDelivery): void {
    if (row.interrupted_by) log.warn({ delivery_id: row.id, interrupted_by: row.interrupted_by }, 'retrying a delivery whose attempt was interrupted');
    const entry = { abort: new AbortController(), cut: false, done: Promise.resolve() };
    entry.done = attempt(row, entry)
      .catch((err: unknown) => log.error({ err, delivery_id: row.id }, 'delivery attempt crashed'))
      .finally(() => {
        running.delete(row.id);
        signal.wake(); // a slot (and maybe a destination's slot) is free
      });
    running.set(row.id, entry);
  }

  async function loop(): Promise<void> {
    let errors = 0;
    while (!stopping) {
      const free = config.delivery_max_inflight - running.size;
      let full = false;
      if (free > 0) {
        const limit = Math.min(free, CLAIM_BATCH);
        try {
          const rows = await claimDue(sql, {
            instance_id, channels, limit, lease_ms, destination_cap: config.delivery_destination_concurrency, scan: Math.max(limit * CLAIM_SCAN_FACTOR, 100),
          });
          errors = 0;
          if (stopping) {
            await releaseClaims(sql, instance_id, rows.map((r) => r.id));
            break;
          }
          for (const row of rows) launch(row);
          full = rows.length === limit;
        } catch (err) {
          errors++;
          log.error({ err }, 'claiming deliveries failed');
          await signal.wait(Math.min(100 * 2 ** errors, 5000));
          continue;
        }
      }
      if (full) continue;
      await signal.wait(config.delivery_poll_interval_ms);
      // Busy: let a few more attempts finish before the next claim, so one claim serves many
      // finished attempts instead of one each (costs at most COALESCE_MS of latency under load).
      if (running.size > 0 && !stopping) await new Promise((r) => setTimeout(r, COALESCE_MS));
    }
  }

  async function prune(): Promise<void> {
    let n = 0;
    for (let batch = await pruneFinished(sql, config.delivery_retention_days); batch > 0 && !stopping; batch = await pruneFinished(sql, config.delivery_retention_days)) n += batch;
    if (n > 0) log.info({ deleted: n, retention_days: config.delivery_retention_days }, 'finished deliveries pruned');
  }

  return {
    async start() {
      const released = await releaseClaims(sql, instance_id);
      if (released > 0) log.warn({ released, instance_id }, 'deliveries claimed by a previous run of this instance are due again');
      if (deps.listen) {
        const sub = await sql.listen(config.delivery_notify_channel, () => signal.wake());
        unlisten = () => sub.unlisten();
      }
      loopDone = loop();
      pruneTimer = setInterval(() => void prune().catch((err: unknown) => log.warn({ err }, 'pruning deliveries failed')), PRUNE_EVERY_MS);
      pruneTimer.unref();
      log.info({ instance_id, channels, listen: deps.listen }, 'delivery worker started');
    },
    async stop(grace_ms = 2000) {
      if (stopping) return;
      stopping = true;
      if (pruneTimer) clearInterval(pruneTimer);
      signal.wake();
      await loopDone;
      const all = () => Promise.all([...running.values()].map((e) => e.done));
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([all(), new Promise<void>((r) => { timer = setTimeout(r, grace_ms); })]);
      clearTimeout(timer);
      for (const e of running.values()) {
        e.cut = true;
        e.abort.abort(new Error('delivery worker stopping'));
      }
      await all();
      await unlisten?.().catch(() => {});
    },
    inflight: () => running.size,
  };
}
