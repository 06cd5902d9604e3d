/** One request of a HAR 1.2 archive, as the waterfall shows it (http://www.softwareishard.com/blog/har-12-spec/). */
export interface HarRequest { url: string; method: string; status: number; start_ms: number; duration_ms: number }

type HarArchive = { log?: { entries?: Array<{ startedDateTime?: string; time?: number; request?: { url?: string; method?: string }; response?: { status?: number } }> } };

/**
 * The requests of a HAR archive in start order: `start_ms` from the first request's start,
 * `duration_ms` the entry's total `time` (negative or missing as 0). Anything that is not an
 * archive gives none.
 */
export function harRequests(archive: unknown): HarRequest[] {
  const entries = (archive as HarArchive)?.log?.entries;
  if (!Array.isArray(entries)) return [];
  const rows = entries.map((e) => ({
    url: String(e.request?.url ?? ''), method: String(e.request?.method ?? ''), status: Number(e.response?.status ?? 0),
    at: Date.parse(e.startedDateTime ?? ''), duration_ms: Math.max(0, Number(e.time ?? 0) || 0),
  })).filter((r) => Number.isFinite(r.at)).sort((a, b) => a.at - b.at);
  const first = rows[0]?.at ?? 0;
  return rows.map(({ at, ...r }) => ({ ...r, start_ms: at - first }));
}

/** The same-origin path and query of a signed artifact URL, for the console's own origin (its CSP allows only 'self'). */
export function sameOrigin(url: string): string {
  const u = new URL(url, location.origin);
  return `${u.pathname}${u.search}`;
}
