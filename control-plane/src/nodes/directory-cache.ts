/** Pages a {@link DirectoryCache} keeps at most; the oldest go first. */
const PAGES_MAX = 1000;

interface Page<T> { at_ms: number; value: Promise<T> }

/**
 * The public node directory's pages (GET /v1/nodes without `mine`, docs/api/nodes.md), each kept
 * for `ttl_ms` after it was read: the same for every caller, and read far more often than nodes
 * change. Requests for one page while it is being read share that read (one statement however
 * many ask at once). A failed read is not kept. `clear()` drops every page (a node changed through
 * the API on this instance); what changes elsewhere (a node going offline, another instance's
 * writes) shows within `ttl_ms`. `ttl_ms` 0 reads every request afresh.
 */
export class DirectoryCache<T> {
  readonly #pages = new Map<string, Page<T>>();

  /** @param ttl_ms how long a page is served after its read, ms (0 = never kept) */
  constructor(readonly ttl_ms: number) {}

  /** The page under `key`: kept if read less than `ttl_ms` ago, else `read()` (shared by concurrent callers). */
  get(key: string, read: () => Promise<T>): Promise<T> {
    if (this.ttl_ms <= 0) return read();
    const now = Date.now();
    const kept = this.#pages.get(key);
    if (kept && now - kept.at_ms < this.ttl_ms) return kept.value;
    const value = read();
    const page = { at_ms: now, value };
    this.#pages.delete(key);
    this.#pages.set(key, page);
    if (this.#pages.size > PAGES_MAX) this.#pages.delete(this.#pages.keys().next().value!);
    value.catch(() => { if (this.#pages.get(key) === page) this.#pages.delete(key); });
    return value;
  }

  /** Forget every page. */
  clear(): void {
    this.#pages.clear();
  }
}
