import { z } from 'zod';
import { assertionResultSchema } from '../checks/assertion-result.js';
import { failingNodeSchema } from './failing-node.js';
import { MONITOR_STATES, monitorStateSchema } from './types.js';

/*
 * HTTP shapes of a monitor's history (docs/api/monitors.md "Checks and history"): raw checks,
 * state changes and the event stream. Uptime and stats are in history-stats.ts.
 */

/** Relative time units of `from`/`to`: seconds, minutes, hours, days, weeks. */
const RELATIVE_UNIT_S = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 } as const;
const RELATIVE = /^-(\d{1,6})([smhdw])$/;

/**
 * A `from`/`to` query value (docs/api/conventions.md): an ISO 8601 date-time (`2026-11-22T10:00:00Z`,
 * an offset allowed), `now`, or a time relative to now: a minus sign, a number and a unit s, m, h,
 * d or w (`-7d`, `-1h`, `-30m`). Resolve it with {@link resolveTime}.
 * @example "-7d"
 */
export const timeParamSchema = z.string().trim().max(40).refine(
  (s) => s === 'now' || RELATIVE.test(s) || z.iso.datetime({ offset: true }).safeParse(s).success,
  { message: 'must be an ISO 8601 date-time, "now", or relative like -7d, -1h, -30m' },
);

/**
 * The instant a {@link timeParamSchema} value names, relative forms counted back from `now_ms`.
 * @returns epoch ms
 */
export function resolveTime(value: string, now_ms: number): number {
  if (value === 'now') return now_ms;
  const rel = RELATIVE.exec(value);
  if (rel) return now_ms - Number(rel[1]) * RELATIVE_UNIT_S[rel[2] as keyof typeof RELATIVE_UNIT_S] * 1000;
  return Date.parse(value);
}

const page = z.coerce.number().int().min(1).max(1_000_000).default(1);
const pageSize = z.coerce.number().int().min(1).max(200).default(20);

/**
 * `GET /v1/monitors/{id}/checks` query: `from` (default -24h) and `to` (default now), `node_id` (one
 * node's checks), `page` >= 1 (default 1), `page_size` 1-200 (default 20). Newest first.
 */
export const checkListQuerySchema = z.object({
  from: timeParamSchema.optional(),
  to: timeParamSchema.optional(),
  node_id: z.string().min(1).max(64).optional(),
  page,
  page_size: pageSize,
});
export type CheckListQuery = z.infer<typeof checkListQuerySchema>;

/**
 * One stored check: what one node measured for one round of the monitor (`scheduled_at`).
 * `response_ms` is the type's response time (http: response_ms; ping: rtt_avg_ms; tcp: connect_ms;
 * dns: query_ms; ssl_expiry: handshake_ms; llm_endpoint, tool_api, rag: latency_ms; traceroute:
 * the destination's first answer), null when nothing was measured. `output` is the check type's
 * output (docs/api/checks.md), `assertions` one result per configured assertion.
 * @example { "monitor_id": "m_…", "node_id": "n_…", "scheduled_at": "2026-11-22T10:00:00.000Z", "started_at": "2026-11-22T10:00:00.003Z", "finished_at": "2026-11-22T10:00:00.081Z", "success": true, "response_ms": 78, "error": null, "error_class": null, "assertions": [], "output": { "status_code": 200 } }
 */
export const checkItemSchema = z.object({
  monitor_id: z.string(),
  /** The node that ran it; null for the checks the control plane runs itself (heartbeat, domain_expiry). */
  node_id: z.string().nullable(),
  scheduled_at: z.iso.datetime(),
  started_at: z.iso.datetime(),
  finished_at: z.iso.datetime(),
  success: z.boolean(),
  response_ms: z.number().nullable(),
  error: z.string().nullable(),
  error_class: z.string().nullable(),
  assertions: z.array(assertionResultSchema),
  output: z.record(z.string(), z.unknown()).nullable(),
});
export type CheckItem = z.infer<typeof checkItemSchema>;

/** `{items[], total, page, page_size, has_more}` of checks (docs/api/conventions.md page-based list). */
export const checkListSchema = z.object({
  items: z.array(checkItemSchema),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
  has_more: z.boolean(),
});

export { failingNodeSchema, type FailingNode } from './failing-node.js';

/**
 * Who changed a monitor's state: `verdict` (a round's verdict), `user` (pause, resume), or
 * `maintenance` (a maintenance window started or ended).
 */
export const STATE_CHANGE_SOURCES = ['verdict', 'user', 'maintenance'] as const;

/**
 * One change of a monitor's state. `changed_at` is when it took effect (for a verdict: the start
 * of the round that caused it, `round_at`), `recorded_at` when the service learnt it. `late` is
 * true when it came from results that arrived after their round's deadline (nodes buffered them
 * while the control plane was unreachable): history was filled in afterwards. `reason` says why in
 * words and `failing_nodes` which nodes failed with which error.
 * @example { "id": "1042", "monitor_id": "m_…", "from_state": "up", "to_state": "down", "changed_at": "2026-11-22T10:00:00.000Z", "recorded_at": "2026-11-22T10:00:41.120Z", "source": "verdict", "late": false, "reason": "2 of 3 nodes failed (quorum 2): connection refused", "failing_nodes": [{ "node_id": "n_…", "country": "DE", "error": "connection refused" }], "round_at": "2026-11-22T10:00:00.000Z" }
 */
export const stateChangeSchema = z.object({
  id: z.string(),
  monitor_id: z.string(),
  from_state: monitorStateSchema,
  to_state: monitorStateSchema,
  changed_at: z.iso.datetime(),
  recorded_at: z.iso.datetime(),
  source: z.enum(STATE_CHANGE_SOURCES),
  late: z.boolean(),
  reason: z.string().nullable(),
  failing_nodes: z.array(failingNodeSchema),
  round_at: z.iso.datetime().nullable(),
});
export type StateChange = z.infer<typeof stateChangeSchema>;

/**
 * `GET /v1/monitors/{id}/state-changes` query: `from`, `to` (default: all kept), `to_state` (only
 * changes into it), `page`, `page_size`. Newest first.
 */
export const stateChangeListQuerySchema = z.object({
  from: timeParamSchema.optional(),
  to: timeParamSchema.optional(),
  to_state: z.enum(MONITOR_STATES).optional(),
  page,
  page_size: pageSize,
});

/** `{items[], total, page, page_size, has_more}` of state changes. */
export const stateChangeListSchema = z.object({
  items: z.array(stateChangeSchema),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
  has_more: z.boolean(),
});
