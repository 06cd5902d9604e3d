import type { CheckItem, StateChange, Stats, Uptime } from '@vantage/shared-protocol';

/* Examples for the OpenAPI document of the monitor history routes (every success response carries one). */

const MONITOR_ID = 'm_01jd3k6w9z4q8r2t7v5x1y3b6c';
const NODE_ID = 'n_01jd3k6w9z4q8r2t7v5x1y3b6g';

const check: CheckItem = {
  monitor_id: MONITOR_ID, node_id: NODE_ID, scheduled_at: '2026-11-22T10:00:00.000Z', started_at: '2026-11-22T10:00:00.003Z',
  finished_at: '2026-11-22T10:00:00.091Z', success: false, response_ms: 86, error: 'status_code 503 is not in [200,204]', error_class: 'assertion',
  assertions: [{ type: 'status_code', op: 'in', expected: [200, 204], actual: 503, ok: false, detail: 'status_code 503 is not in [200,204]' }],
  output: { final_url: 'https://shop.example.com/api/health', status_code: 503, response_ms: 86 },
};

const change: StateChange = {
  id: '1042', monitor_id: MONITOR_ID, from_state: 'up', to_state: 'down', changed_at: '2026-11-22T10:00:00.000Z',
  recorded_at: '2026-11-22T10:00:41.120Z', source: 'verdict', late: false,
  reason: '2 of 3 reporting nodes failed (quorum 2): status_code 503 is not in [200,204]',
  failing_nodes: [{ node_id: NODE_ID, country: 'DE', error: 'status_code 503 is not in [200,204]' }], round_at: '2026-11-22T10:00:00.000Z',
};

const uptime: Uptime = {
  from: '2026-11-21T10:00:00.000Z', to: '2026-11-22T10:00:00.000Z', period: '24h', uptime: 0.995833, uptime_percent: 99.583,
  monitored_s: 86_400, up_s: 85_680, degraded_s: 360, downtime_s: 360, maintenance_s: 0, no_data_s: 0, incidents: 1, mttr_s: 360,
  rounds: { up: 1428, degraded: 6, down: 6, no_data: 0 },
};

const summary = { checks: 180, failures: 1, failure_rate: 0.005556, p50_ms: 81.2, p95_ms: 140.7, p99_ms: 210.3, min_ms: 61, avg_ms: 88.4, max_ms: 231 };
const stats: Stats = {
  from: '2026-11-22T09:00:00.000Z', to: '2026-11-22T10:00:00.000Z', bucket_s: 3600, source: 'rollup', overall: summary,
  buckets: [{ start: '2026-11-22T09:00:00.000Z', ...summary }],
  groups: [{ node_id: null, country: 'DE', overall: summary, buckets: [{ start: '2026-11-22T09:00:00.000Z', ...summary }] }],
};

/** Example payloads (`data`) of the history routes. */
export const HISTORY_EXAMPLES = {
  checks: { items: [check], total: 4320, page: 1, page_size: 20, has_more: true },
  stateChanges: { items: [change], total: 1, page: 1, page_size: 20, has_more: false },
  uptime,
  stats,
};
