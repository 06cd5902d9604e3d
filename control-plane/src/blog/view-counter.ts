import type { Sql } from '../db/sql.js';
import type { Logger } from '../log.js';
import { addViews } from './blog.db.js';

/**
 * Reads of posts, counted in memory and added to `view_count` in one statement every `flush_ms`
 * (config blog_view_flush_ms): a post read a thousand times a second costs one row update per
 * flush, not a thousand. A failed flush keeps its counts for the next one. `close()` stops the
 * timer and writes what is left (main.ts calls it at shutdown).
 */
export class ViewCounter {
  private pending = new Map<string, number>();
  private flushing: Promise<void> | null = null;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly sql: Sql, flush_ms: number, private readonly log: Pick<Logger, 'warn'>) {
    this.timer = setInterval(() => void this.flush(), flush_ms);
    this.timer.unref();
  }

  /** Count one read of `slug`. */
  count(slug: string): void {
    this.pending.set(slug, (this.pending.get(slug) ?? 0) + 1);
  }

  /** Reads of `slug` counted here and not yet written. */
  unwritten(slug: string): number {
    return this.pending.get(slug) ?? 0;
  }

  /** Write the counted reads now (waits for a flush in progress first). Never throws. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    this.flushing = addViews(this.sql, batch).catch((err: unknown) => {
      this.log.warn({ err, posts: batch.size }, 'blog view counts not written; kept for the next flush');
      for (const [slug, n] of batch) this.pending.set(slug, (this.pending.get(slug) ?? 0) + n);
    }).finally(() => { this.flushing = null; });
    await this.flushing;
  }

  /** Stop flushing on the timer and write what is left. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}

const counters = new WeakMap<Sql, ViewCounter>();

/** The process's view counter of database `sql` (one per database client, made on first use). */
export function viewCounterFor(sql: Sql, flush_ms: number, log: Pick<Logger, 'warn'>): ViewCounter {
  let counter = counters.get(sql);
  if (!counter) counters.set(sql, (counter = new ViewCounter(sql, flush_ms, log)));
  return counter;
}

/** Write and stop the view counter of `sql`, if one was made (shutdown). */
export async function closeViewCounter(sql: Sql): Promise<void> {
  await counters.get(sql)?.close();
  counters.delete(sql);
}
