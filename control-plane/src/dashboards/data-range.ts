import { DASHBOARD_LIMITS, resolveTime } from '@vantage/shared-protocol';
import { ApiError } from '../errors.js';

const DAY_MS = 86_400_000;

function bad(path: string, message: string): ApiError {
  return new ApiError('VALIDATION_FAILED', `${path}: ${message}`, { fields: [{ path, message }], in: 'query' });
}

/**
 * The data range [from, to) of a dashboard data request (docs/api/dashboards.md "Widget data"):
 * `from` default 24 hours before `now_ms`, `to` default `now_ms`; relative forms (`-90d`) count
 * back from `now_ms`. @throws ApiError VALIDATION_FAILED when from is not before to or the range
 * is longer than DASHBOARD_LIMITS.range_max_days
 */
export function dataRange(q: { from?: string; to?: string }, now_ms: number): { from: Date; to: Date } {
  const from = q.from !== undefined ? resolveTime(q.from, now_ms) : now_ms - DAY_MS;
  const to = q.to !== undefined ? resolveTime(q.to, now_ms) : now_ms;
  if (!(from < to)) throw bad('from', 'must be before to');
  if (to - from > DASHBOARD_LIMITS.range_max_days * DAY_MS) throw bad('from', `the range may be ${DASHBOARD_LIMITS.range_max_days} days at most`);
  return { from: new Date(from), to: new Date(to) };
}
