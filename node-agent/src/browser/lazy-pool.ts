import type { Logger } from 'pino';
import { BrowserPool, type BrowserPoolOptions } from './pool.js';

/**
 * The node's one {@link BrowserPool}, made at the first browser check (a node that never gets a
 * browser monitor never starts Chromium) and closed with the agent.
 */
export class LazyBrowserPool {
  private pool: BrowserPool | null = null;
  private closed = false;

  constructor(private readonly options: Omit<BrowserPoolOptions, 'log'> & { log: Logger }) {}

  /** The pool, made on first use. @throws Error after {@link close}. */
  get(): BrowserPool {
    if (this.closed) throw new Error('the node is shutting down: browser checks stopped');
    this.pool ??= new BrowserPool(this.options);
    return this.pool;
  }

  /** True once a check made the pool. */
  get started(): boolean {
    return this.pool !== null;
  }

  /** Close the browser, if one was started; later {@link get} calls throw. */
  async close(): Promise<void> {
    this.closed = true;
    await this.pool?.close();
  }
}
