/**
 * A bounded in-process cache of look-up answers with a time to live, least recently used
 * dropped first, that also joins concurrent look-ups of one key (one registry exchange for a
 * burst of identical queries). Each control-plane instance has its own: answers are public
 * registry data, so instances need not agree.
 */
export interface TtlCache<T> {
  /**
   * The cached value of `key` when younger than the TTL, else the value `load` produces (cached
   * when `keep(value)`; a rejection is not cached). Concurrent calls for one key share one `load`.
   * @returns the value and whether it came from the cache
   */
  get(key: string, load: () => Promise<T>, keep?: (value: T) => boolean): Promise<{ value: T; cached: boolean }>;
  readonly size: number;
}

/** @param ttl_s seconds an entry is served (0: never cached, only joined) @param max_entries entries kept */
export function createTtlCache<T>(ttl_s: number, max_entries: number, now: () => number = Date.now): TtlCache<T> {
  const entries = new Map<string, { value: T; expires_at_ms: number }>();
  const loading = new Map<string, Promise<T>>();
  return {
    get size() { return entries.size; },
    async get(key, load, keep = () => true) {
      const hit = entries.get(key);
      if (hit && hit.expires_at_ms > now()) {
        entries.delete(key);
        entries.set(key, hit);
        return { value: hit.value, cached: true };
      }
      if (hit) entries.delete(key);
      let pending = loading.get(key);
      if (!pending) {
        pending = load().finally(() => loading.delete(key));
        loading.set(key, pending);
        pending.then((value) => {
          if (ttl_s <= 0 || !keep(value)) return;
          entries.set(key, { value, expires_at_ms: now() + ttl_s * 1000 });
          while (entries.size > max_entries) entries.delete(entries.keys().next().value!);
        }, () => {});
      }
      return { value: await pending, cached: false };
    },
  };
}
