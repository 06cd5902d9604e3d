import type { ResultEnvelope } from '@vantage/shared-protocol';
import type { Logger } from 'pino';
import type { ResultAudit } from './audit.js';
import type { Outbox } from './outbox.js';

/**
 * Defaults: how long a monitor result waits for others to share its outbox commit (ms), and the
 * results per commit at most (a full group is committed at once).
 */
export const RESULT_WRITER_DEFAULTS = { commit_delay_ms: 50, group_max: 500 };

export interface ResultWriterOptions {
  outbox: Outbox;
  /** The test-only result audit (outbox/audit.ts), written in the same transaction; null when off. */
  audit: ResultAudit | null;
  log: Logger;
  /** After each commit: the results written, old rows dropped to make room, results stored held for artifacts. */
  onCommitted: (results: readonly ResultEnvelope[], info: { dropped: number; held: number }) => void;
  /** Default {@link RESULT_WRITER_DEFAULTS}. */
  commit_delay_ms?: number;
  /** Default {@link RESULT_WRITER_DEFAULTS}. */
  group_max?: number;
}

/**
 * Group commit in front of the outbox: results produced close together are written in one SQLite
 * transaction instead of one each. A node running 10,000 monitors a minute finishes a check every
 * few ms, and a commit per result (a WAL write of the same few pages each time) was most of its
 * outbox cost; the sender then sends the group as one `result.batch` and gets one ack for it.
 *
 * A monitor result is committed at most `commit_delay_ms` after it was produced; an ad-hoc task
 * result (someone waits for it) and a full group are committed in the same event-loop turn. Until
 * then the result is not produced: a kill -9 in that window loses it as it would lose a check
 * still running (a round without this node's result is unknown, never failed; a task is failed at
 * its deadline). {@link ResultWriter.flush} commits at once: at shutdown, and before the node says
 * which results it holds.
 */
export class ResultWriter {
  readonly #o: Required<ResultWriterOptions>;
  #group: ResultEnvelope[] = [];
  #timer: NodeJS.Timeout | null = null;
  #soon = false;

  constructor(opts: ResultWriterOptions) {
    this.#o = { ...RESULT_WRITER_DEFAULTS, ...opts };
  }

  /** Queue `result` for the next commit. Never throws: a failed commit is logged by {@link ResultWriter.flush}. */
  write(result: ResultEnvelope): void {
    this.#group.push(result);
    if (result.task_id !== null || this.#group.length >= this.#o.group_max) {
      if (this.#soon) return;
      this.#soon = true;
      setImmediate(() => {
        this.#soon = false;
        this.flush();
      });
    } else {
      this.#timer ??= setTimeout(() => this.flush(), this.#o.commit_delay_ms);
    }
  }

  /** Results waiting for their commit. */
  get waiting(): number {
    return this.#group.length;
  }

  /**
   * Commit every waiting result now, in one transaction (with their audit rows), then tell
   * `onCommitted`. A commit that fails (disk full, I/O error) writes none of the group: it is
   * logged with the ids, and those results are lost (as when a single insert failed).
   */
  flush(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const group = this.#group;
    if (group.length === 0) return;
    this.#group = [];
    const { outbox, audit } = this.#o;
    let info: { dropped: number; held: number };
    try {
      info = audit ? audit.recordAll(group, () => outbox.addMany(group)) : outbox.addMany(group);
    } catch (err) {
      this.#o.log.error({ err, result_ids: group.map((r) => r.result_id) }, 'could not write results to the outbox; results lost');
      return;
    }
    this.#o.onCommitted(group, info);
  }
}
