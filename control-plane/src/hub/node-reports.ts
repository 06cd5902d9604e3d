import type { Sql } from '../db/sql.js';
import type { Logger } from '../log.js';
import { recordClockOffsets, recordOutboxStatsMany, type ClockReport, type OutboxReport } from '../nodes/node-reports.db.js';

/** How long a report waits in memory before it is written, ms: what GET /v1/nodes/{id} may lag behind the node. */
export const REPORT_FLUSH_MS = 1000;
/** Reports one statement writes at most (a larger backlog takes several). */
const REPORT_BATCH_MAX = 1000;

/** A write-behind of per-node reports: the latest report of each node, written in batches. */
export interface ReportWriter<R extends { id: string }> {
  /** Keep `report` (replacing an unwritten older one of the same node) for the next flush. */
  note(report: R): void;
  /** Write every report kept now. Resolves once written (errors are logged, never thrown). */
  flush(): Promise<void>;
  /** Stop the timer after a last flush. */
  close(): Promise<void>;
}

/**
 * Coalesce per-node reports that only show the latest value (outbox.stats, clock offsets): kept in
 * memory, the newest per node, and written every `flush_ms` in one statement per REPORT_BATCH_MAX
 * nodes. At 10,000 nodes reporting once a minute that is about one statement a second instead of
 * 170 single-row UPDATEs each waiting for its own WAL flush. A failed write is logged and its
 * reports dropped: the next report of each node replaces them.
 */
export function reportWriter<R extends { id: string }>(what: string, write: (reports: R[]) => Promise<void>, log: Pick<Logger, 'warn'>, flush_ms = REPORT_FLUSH_MS): ReportWriter<R> {
  let pending = new Map<string, R>();
  let running: Promise<void> = Promise.resolve();
  const flush = (): Promise<void> => {
    running = running.then(async () => {
      if (pending.size === 0) return;
      const all = [...pending.values()];
      pending = new Map();
      for (let i = 0; i < all.length; i += REPORT_BATCH_MAX) {
        const batch = all.slice(i, i + REPORT_BATCH_MAX);
        await write(batch).catch((err: unknown) => log.warn({ err, nodes: batch.length }, `writing ${what} failed`));
      }
    });
    return running;
  };
  const timer = setInterval(() => void flush(), flush_ms);
  timer.unref();
  return {
    note: (report) => void pending.set(report.id, report),
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}

/** The hub's two report writers: outbox.stats and heartbeat clock offsets. */
export interface NodeReports { outbox: ReportWriter<OutboxReport>; clock: ReportWriter<ClockReport> }

/** Build {@link NodeReports} on `sql` (nodes/node-reports.db.ts recordOutboxStatsMany / recordClockOffsets). */
export function nodeReports(sql: Sql, log: Pick<Logger, 'warn'>, flush_ms = REPORT_FLUSH_MS): NodeReports {
  return {
    outbox: reportWriter('outbox stats', (r) => recordOutboxStatsMany(sql, r), log, flush_ms),
    clock: reportWriter('clock offsets', (r) => recordClockOffsets(sql, r), log, flush_ms),
  };
}
