import { navigate, useLocation } from './router.js';

/**
 * A paged list's filters kept in the URL's query, so a filtered list is a link: the value of each
 * of `keys` ('' when absent), the 1-based `page`, and `go` to change some of them (the others
 * kept, the page back to 1 unless given), replacing the history entry of `base`.
 */
export function useUrlFilters<K extends string>(base: string, keys: readonly K[]): {
  values: Record<K, string>; page: number; go: (next: Partial<Record<K, string>> & { page?: number }) => void;
} {
  const { query } = useLocation();
  const values = Object.fromEntries(keys.map((k) => [k, query.get(k) ?? ''])) as Record<K, string>;
  const page = Math.max(1, Number(query.get('page')) || 1);
  const go = (next: Partial<Record<K, string>> & { page?: number }) => {
    const q = new URLSearchParams();
    // The team switcher's choice stays in the URL (api/team-scope.ts).
    if (query.get('team_id')) q.set('team_id', query.get('team_id')!);
    for (const k of keys) { const value = next[k] ?? values[k]; if (value) q.set(k, value); }
    if ((next.page ?? 1) > 1) q.set('page', String(next.page));
    navigate(`${base}${q.size ? `?${q}` : ''}`, true);
  };
  return { values, page, go };
}
