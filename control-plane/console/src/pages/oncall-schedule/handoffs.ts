import type { OncallNow, OncallOverride } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';

/** One stretch of the coming on-call roster: who (null: nobody), from when, until when (null: open-ended), and why. */
export interface Stretch { user_id: string | null; from: string; until: string | null; source: OncallNow['source'] }

/** Most lookups for one roster: a 1-hour rotation over 14 days would need 336; this keeps the page's calls bounded. */
const MAX_LOOKUPS = 60;

/**
 * Who is on call from `from` for `horizon_ms`, read only from the API's on-call lookup
 * (GET /v1/oncall/schedules/{id}/on-call?at=, docs/api/teams.md "Who is on call"): each lookup
 * answers the person and the bounds of the current shift or override, and the next lookup is at
 * the earliest of that shift's end and the next start or end of an override (`overrides`, which
 * can begin inside a shift). Consecutive lookups with the same person are one stretch; nobody on
 * call with no known end stops the walk. At most MAX_LOOKUPS calls; `truncated` says so.
 * @throws ApiFailure of the lookup
 */
export async function rosterAhead(schedule_id: string, overrides: OncallOverride[], from: Date, horizon_ms: number): Promise<{ stretches: Stretch[]; truncated: boolean }> {
  const end_ms = from.getTime() + horizon_ms;
  const marks = overrides.flatMap((o) => [Date.parse(o.starts_at), Date.parse(o.ends_at)]);
  const stretches: Stretch[] = [];
  let at_ms = from.getTime();
  for (let n = 0; n < MAX_LOOKUPS; n++) {
    const now = await api<OncallNow>('GET', `/v1/oncall/schedules/${encodeURIComponent(schedule_id)}/on-call?at=${encodeURIComponent(new Date(at_ms).toISOString())}`);
    const shift_end_ms = now.shift_end ? Date.parse(now.shift_end) : null;
    const next_mark = marks.filter((m) => m > at_ms).sort((a, b) => a - b)[0] ?? null;
    const next_ms = [shift_end_ms, next_mark].filter((m): m is number => m !== null && m > at_ms).sort((a, b) => a - b)[0] ?? null;
    const last = stretches[stretches.length - 1];
    if (last && last.user_id === now.user_id) last.until = next_ms === null ? null : new Date(next_ms).toISOString();
    else stretches.push({ user_id: now.user_id, from: !last && now.shift_start ? now.shift_start : new Date(at_ms).toISOString(), until: next_ms === null ? null : new Date(next_ms).toISOString(), source: now.source });
    if (next_ms === null || next_ms >= end_ms) return { stretches, truncated: false };
    at_ms = next_ms;
  }
  return { stretches, truncated: true };
}
