import type { z } from '@hono/zod-openapi';
import { jsonOk } from '../http/openapi-responses.js';

/*
 * Examples for the OpenAPI document of the monitor routes (every request body and success
 * response carries one), and the helpers that attach them.
 */

const MONITOR_ID = 'm_01jd3k6w9z4q8r2t7v5x1y3b6c';
const GROUP_ID = 'mg_01jd3k6w9z4q8r2t7v5x1y3b6d';
const USER_ID = 'u_01jd3k6w9z4q8r2t7v5x1y3b6e';
const AT = '2026-11-22T10:00:00.000Z';

/** A JSON request body (required) with an example. */
export function bodyWithExample<T extends z.ZodType>(schema: T, example: unknown) {
  return { required: true, content: { 'application/json': { schema, example } } };
}

/** A success response (envelope of docs/api/conventions.md) whose example wraps `data`. */
export function okWithExample<T extends z.ZodType>(schema: T, description: string, data: unknown) {
  const res = jsonOk(schema, description);
  return { ...res, content: { 'application/json': { ...res.content['application/json'], example: { data, request_id: 'req_01jd3k6w9z4q8r2t7v5x1y3b6f' } } } };
}

export const EXAMPLES = {
  create: {
    name: 'Checkout API', type: 'https', target: 'https://shop.example.com/api/health', interval_s: 60, node_count: 3,
    group_id: GROUP_ID, tags: ['Prod', 'shop', 'prod'], config: { expected_status: '200', assertions: [{ type: 'response_time', op: 'lt', value: 800 }] },
  },
  heartbeatCreate: { name: 'Nightly backup', type: 'heartbeat', config: { cron: '0 3 * * *', timezone: 'Europe/Paris', grace_s: 900 } },
  patch: { name: 'Checkout API (EU)', interval_s: 300, tags: ['prod'] },
  monitor: {
    id: MONITOR_ID, user_id: USER_ID, team_id: null, name: 'Checkout API', type: 'https', target: 'https://shop.example.com/api/health',
    config: {
      method: 'GET', timeout_ms: 10000, headers: {}, follow_redirects: true, ip_version: 'auto', expected_status: '200',
      assertions: [{ type: 'response_time', op: 'lt', value: 800 }], ignore_tls_errors: false,
    },
    interval_s: 60, node_count: 3, group_id: GROUP_ID, tags: ['prod', 'shop'], status: 'active', state: 'pending',
    private_target: false, node_ids: [],
    placement: { status: 'short', secret_headers: [], message: 'placed on 0 of 3 nodes: it runs only on your own, shared and platform nodes that can run https checks, and no more of those online can run it; placement keeps trying' },
    heartbeat: null, last_check_at: null, uptime_24h: null,
    state_changed_at: AT, flapping: false, flapping_since: null, created_at: AT, updated_at: AT,
  },
  group: { id: GROUP_ID, user_id: USER_ID, team_id: null, name: 'Production', sort_order: 10, monitor_count: 4, created_at: AT, updated_at: AT },
  groupCreate: { name: 'Production', sort_order: 10 },
  groupPatch: { sort_order: 20 },
  rotated: { token: 'hb_9k3vq2m8x4r7t1w6y0z5a3b2c8d4e6f1', url: 'https://vantage.example.com/v1/heartbeat/hb_9k3vq2m8x4r7t1w6y0z5a3b2c8d4e6f1' },
  exported: {
    version: 1, exported_at: AT, groups: [{ name: 'Production', sort_order: 10 }],
    monitors: [
      { name: 'Checkout API', type: 'https', target: 'https://shop.example.com/api/health', interval_s: 60, node_count: 3, tags: ['prod', 'shop'], group: 'Production', config: { expected_status: '200' } },
      { name: 'Nightly backup', type: 'heartbeat', interval_s: 86400, node_count: 0, tags: [], group: '', config: { cron: '0 3 * * *', timezone: 'Europe/Paris', grace_s: 900 } },
    ],
  },
  importReport: {
    dry_run: true, created: 0, failed: 1, groups_created: ['Production'],
    items: [
      { index: 0, name: 'Checkout API', status: 'valid', monitor_id: null, error: null },
      { index: 1, name: 'Intranet', status: 'failed', monitor_id: null, error: { code: 'MONITOR_INVALID_TARGET', message: 'target 10.0.0.5 is a private address (10.0.0.5); private targets need one of your nodes that allows private targets' } },
    ],
  },
} as const;

export { MONITOR_ID as EXAMPLE_MONITOR_ID, GROUP_ID as EXAMPLE_GROUP_ID };
