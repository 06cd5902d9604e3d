import { deadlineSignal, NODE_ARTIFACT_PATH } from '@vantage/shared-protocol';
import type { Logger } from 'pino';
import type { Secret } from '../secret.js';
import type { ArtifactSpool } from './artifact-spool.js';
import type { Outbox, PendingArtifact } from './outbox.js';

/** Where uploads go and with which credential; null while the node is not enrolled. */
export type UploadTarget = () => { control_plane_url: string; credential: Secret } | null;

export interface UploaderOptions {
  outbox: Outbox;
  spool: ArtifactSpool;
  target: UploadTarget;
  log: Logger;
  /** A result was released (all its artifacts settled): the sender can send it. */
  onReleased: () => void;
  /** Bound on one upload, ms (default 60 s). */
  timeout_ms?: number;
  /** Retry delay after a transient failure: doubles from `min_ms` to `max_ms` (default 1 s to 30 s). */
  backoff?: { min_ms: number; max_ms: number };
}

/**
 * Statuses that refuse an upload for good (docs/api/artifacts.md): a bad request (400), a node not
 * placed on the monitor for that round (403), a monitor gone (404), too many artifacts for the
 * round (409), too large (413), not a browser monitor or a bad file (422). Anything else (no
 * answer, 401 while a credential is being re-issued, 429, 5xx) is transient: tried again later.
 */
const FATAL_STATUSES = new Set([400, 403, 404, 409, 413, 422]);
/**
 * Answers of 500 and other server errors (503 aside: overload, database away), 401 and 405 one
 * artifact may get before it is given up: a control plane that answers but cannot store it (its
 * data folder not writable, or a version without this route, which refuses the node credential
 * on HTTP) must not hold the result back for good. A node whose credential is really revoked is
 * stopped by its socket's close code anyway. Unanswered attempts (the control plane unreachable)
 * never count.
 */
const SERVER_ERRORS_MAX = 8;

type Outcome = { kind: 'stored' } | { kind: 'refused'; status: number; code: string } | { kind: 'retry'; why: string; after_ms?: number; server_error?: boolean };

/**
 * Uploads the artifacts held results wait for (docs/architecture/node-agent.md "Artifacts"):
 * oldest result first, one at a time, `PUT <control plane>/v1/nodes/artifacts/<sha256>` with the
 * node credential and the result's monitor, round and kind. Content-addressed, so re-sending
 * after a lost answer or a reconnect is harmless: an upload cut short is simply sent again whole.
 * Stored → the artifact is settled and its spool file deleted when no other result needs it;
 * refused for good (or {@link SERVER_ERRORS_MAX} server errors) → settled without its URL;
 * otherwise retried with backoff.
 */
export class ArtifactUploader {
  readonly #o: Required<Omit<UploaderOptions, 'backoff'>> & { backoff: { min_ms: number; max_ms: number } };
  #running: Promise<void> | null = null;
  #again = false;
  #timer: NodeJS.Timeout | null = null;
  #delay_ms: number;
  #stopped = false;
  readonly #abort = new AbortController();
  /** Server errors answered per artifact (`result_id:kind`), see SERVER_ERRORS_MAX. */
  readonly #server_errors = new Map<string, number>();

  constructor(opts: UploaderOptions) {
    this.#o = { timeout_ms: 60_000, backoff: { min_ms: 1000, max_ms: 30_000 }, ...opts };
    this.#delay_ms = this.#o.backoff.min_ms;
  }

  /**
   * Upload what is pending, soon. `fresh` (the link to the control plane just came up) also ends
   * a backoff wait at once.
   */
  kick(fresh = false): void {
    if (this.#stopped) return;
    if (fresh) {
      this.#delay_ms = this.#o.backoff.min_ms;
      if (this.#timer) {
        clearTimeout(this.#timer);
        this.#timer = null;
      }
    } else if (this.#timer) {
      return; // waiting out a backoff
    }
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#pass().finally(() => {
      this.#running = null;
      if (this.#again && !this.#timer) {
        this.#again = false;
        this.kick();
      }
    });
  }

  /** Stop: no new uploads; an upload in progress is aborted. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#abort.abort();
    await this.#running;
  }

  async #pass(): Promise<void> {
    for (;;) {
      if (this.#stopped) return;
      const [next] = this.#o.outbox.pendingArtifacts(1);
      if (!next) return;
      let out = await this.#upload(next);
      if (this.#stopped) return; // aborted by stop(): it goes again at the next start
      const key = `${next.result_id}:${next.kind}`;
      if (out.kind === 'retry' && out.server_error) {
        const n = (this.#server_errors.get(key) ?? 0) + 1;
        this.#server_errors.set(key, n);
        if (n >= SERVER_ERRORS_MAX) out = { kind: 'refused', status: 500, code: `${n} server errors: ${out.why}` };
      }
      if (out.kind !== 'retry') this.#server_errors.delete(key);
      if (out.kind === 'retry') {
        const wait_ms = Math.max(out.after_ms ?? 0, this.#delay_ms);
        this.#o.log.info({ sha256: next.sha256, why: out.why, retry_in_ms: wait_ms }, 'artifact upload failed; retrying');
        this.#delay_ms = Math.min(this.#o.backoff.max_ms, this.#delay_ms * 2);
        this.#again = false;
        this.#timer = setTimeout(() => {
          this.#timer = null;
          this.kick();
        }, wait_ms);
        this.#timer.unref();
        return;
      }
      this.#delay_ms = this.#o.backoff.min_ms;
      if (out.kind === 'refused') {
        this.#o.log.warn({ sha256: next.sha256, kind: next.kind, monitor_id: next.monitor_id, status: out.status, code: out.code }, 'artifact refused by the control plane; the result goes without it');
      }
      const { released, freed } = this.#o.outbox.artifactSettled(next.result_id, next.kind, out.kind === 'stored');
      if (freed) this.#o.spool.remove(next.sha256);
      if (released) this.#o.onReleased();
    }
  }

  async #upload(a: PendingArtifact): Promise<Outcome> {
    const target = this.#o.target();
    if (!target) return { kind: 'retry', why: 'not enrolled yet' };
    const bytes = await this.#o.spool.read(a.sha256);
    if (!bytes) return { kind: 'refused', status: 0, code: 'SPOOL_FILE_MISSING' };
    const url = new URL(`${target.control_plane_url.replace(/\/+$/, '')}${NODE_ARTIFACT_PATH}/${a.sha256}`);
    url.search = new URLSearchParams({ monitor_id: a.monitor_id, scheduled_at: a.scheduled_at, kind: a.kind }).toString();
    // The bound covers the answer's body too; not AbortSignal.any/timeout, whose WeakRefs kept
    // each upload's request through young-generation collections (shared-protocol deadline-signal.ts).
    const deadline = deadlineSignal(this.#abort.signal, this.#o.timeout_ms);
    let res: Response;
    let text: string;
    try {
      try {
        res = await fetch(url, {
          method: 'PUT',
          headers: { authorization: `Bearer ${target.credential.reveal()}`, 'content-type': 'application/octet-stream' },
          body: bytes,
          signal: deadline.signal,
        });
      } catch (err) {
        return { kind: 'retry', why: String((err as Error)?.cause ?? (err as Error)?.message ?? err) };
      }
      text = await res.text().catch(() => '');
    } finally {
      deadline.dispose();
    }
    if (res.ok) return { kind: 'stored' };
    let code = '';
    try { code = String((JSON.parse(text) as { error?: { code?: string } }).error?.code ?? ''); } catch { /* not the envelope */ }
    if (FATAL_STATUSES.has(res.status)) return { kind: 'refused', status: res.status, code };
    const retry_after_s = Number(res.headers.get('retry-after'));
    return {
      kind: 'retry', why: `HTTP ${res.status} ${code}`.trim(), server_error: (res.status >= 500 && res.status !== 503) || res.status === 401 || res.status === 405,
      ...(retry_after_s > 0 ? { after_ms: Math.min(retry_after_s, 300) * 1000 } : {}),
    };
  }
}
