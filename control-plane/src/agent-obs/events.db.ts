import type { SqlExecutor } from '../contracts.js';
import type { Sql } from '../db/sql.js';
import type { OwnerScope } from '../teams/authorize.js';
import { ownedBy } from '../teams/owner-scope.db.js';

/** An `agent_obs_events` row (0071_agent_obs.sql); `seq` is the stream order (commit order). */
export interface AgentObsEventRow {
  seq: string;
  id: string;
  monitor_id: string;
  user_id: string;
  team_id: string | null;
  node_id: string;
  scheduled_at: Date;
  occurred_at: Date;
  success: boolean;
  latency_ms: number | null;
  cost_usd: number | null;
  tokens_used: number | null;
  status_code: number | null;
  failure_class: string | null;
  failure_detail: Record<string, unknown> | null;
  region: string | null;
  trace_id: string | null;
  obs_type: 'llm_endpoint' | 'tool_api' | 'rag';
  response_preview: string | null;
}

export type NewAgentObsEvent = Omit<AgentObsEventRow, 'seq'>;

const COLUMNS = (ex: SqlExecutor) => ex`
  seq::text AS seq, id, monitor_id, user_id, team_id, node_id, scheduled_at, occurred_at, success, latency_ms,
  cost_usd::float8 AS cost_usd, tokens_used, status_code, failure_class, failure_detail, region, trace_id, obs_type, response_preview`;

/** NOTIFY channel told the last seq of every committed batch of events. */
export const AGENT_OBS_EVENTS_CHANNEL = 'vantage_agent_obs_events';

/**
 * Insert `events` in `tx` (a transaction) with the next seqs of the stream head, whose row lock
 * is held until commit: seq order is commit order. Queues a NOTIFY of the last seq (sent on commit).
 */
export async function insertAgentObsEvents(tx: SqlExecutor, events: NewAgentObsEvent[]): Promise<void> {
  if (events.length === 0) return;
  const [head] = await tx<{ seq: string }[]>`UPDATE agent_obs_stream_head SET seq = seq + ${events.length} RETURNING seq::text AS seq`;
  const first = BigInt(head!.seq) - BigInt(events.length) + 1n;
  for (const [i, e] of events.entries()) {
    await tx`
      INSERT INTO agent_obs_events (seq, id, monitor_id, user_id, team_id, node_id, scheduled_at, occurred_at, success, latency_ms, cost_usd,
        tokens_used, status_code, failure_class, failure_detail, region, trace_id, obs_type, response_preview)
      VALUES (${(first + BigInt(i)).toString()}, ${e.id}, ${e.monitor_id}, ${e.user_id}, ${e.team_id}, ${e.node_id}, ${e.scheduled_at}, ${e.occurred_at},
        ${e.success}, ${e.latency_ms}, ${e.cost_usd}, ${e.tokens_used}, ${e.status_code}, ${e.failure_class},
        ${e.failure_detail === null ? null : tx.json(e.failure_detail as never)}, ${e.region}, ${e.trace_id}, ${e.obs_type}, ${e.response_preview})`;
  }
  await tx`SELECT pg_notify(${AGENT_OBS_EVENTS_CHANNEL}, ${head!.seq})`;
}

/** Which of (monitor, round) of `node_id` already have an event: `monitor_id/scheduled ms` keys. */
export async function existingEventKeys(tx: SqlExecutor, node_id: string, monitor_ids: string[], scheduled: Date[]): Promise<Set<string>> {
  const rows = await tx<{ monitor_id: string; ms: number }[]>`
    SELECT e.monitor_id, extract(epoch FROM e.scheduled_at)::float8 * 1000 AS ms
    FROM unnest(${monitor_ids}::text[], ${scheduled.map((d) => d.toISOString())}::timestamptz[]) AS k(monitor_id, scheduled_at)
    JOIN agent_obs_events e ON e.monitor_id = k.monitor_id AND e.node_id = ${node_id} AND e.scheduled_at = k.scheduled_at`;
  return new Set(rows.map((r) => `${r.monitor_id}/${Math.round(r.ms)}`));
}

/** Event filters (all optional; `from`/`to` epoch ms, inclusive). */
export interface EventFilters { monitor_ids: string[] | null; from_ms?: number; to_ms?: number; success?: boolean }

/** Events in `scope` matching `f`, newest first, with their total. */
export async function listAgentObsEvents(sql: Sql, scope: OwnerScope, f: EventFilters, limit: number, offset: number): Promise<{ rows: AgentObsEventRow[]; total: number }> {
  const where = sql`${ownedBy(sql, scope)}
    ${f.monitor_ids ? sql`AND monitor_id = ANY(${f.monitor_ids}::text[])` : sql``}
    ${f.from_ms !== undefined ? sql`AND occurred_at >= ${new Date(f.from_ms)}` : sql``}
    ${f.to_ms !== undefined ? sql`AND occurred_at <= ${new Date(f.to_ms)}` : sql``}
    ${f.success !== undefined ? sql`AND success = ${f.success}` : sql``}`;
  const rows = await sql<AgentObsEventRow[]>`SELECT ${COLUMNS(sql)} FROM agent_obs_events WHERE ${where} ORDER BY agent_obs_events.seq DESC LIMIT ${limit} OFFSET ${offset}`;
  const [count] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM agent_obs_events WHERE ${where}`;
  return { rows, total: count!.n };
}

/**
 * Checks of monitor `monitor_id`, newest first: after the keyset `before_seq` (cursor mode) or
 * from `offset`, with the monitor's total.
 */
export async function listAgentObsChecks(sql: Sql, monitor_id: string, limit: number, offset: number, before_seq: string | null): Promise<{ rows: AgentObsEventRow[]; total: number }> {
  const rows = before_seq === null
    ? await sql<AgentObsEventRow[]>`SELECT ${COLUMNS(sql)} FROM agent_obs_events WHERE monitor_id = ${monitor_id} ORDER BY agent_obs_events.seq DESC LIMIT ${limit} OFFSET ${offset}`
    : await sql<AgentObsEventRow[]>`SELECT ${COLUMNS(sql)} FROM agent_obs_events WHERE monitor_id = ${monitor_id} AND seq < ${before_seq}::bigint ORDER BY agent_obs_events.seq DESC LIMIT ${limit}`;
  const [count] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM agent_obs_events WHERE monitor_id = ${monitor_id}`;
  return { rows, total: count!.n };
}

/** Every event after `after_seq`, oldest first, at most `limit` (the stream; all owners: the hub filters). */
export async function eventsAfter(sql: Sql, after_seq: string, limit: number): Promise<AgentObsEventRow[]> {
  return sql<AgentObsEventRow[]>`SELECT ${COLUMNS(sql)} FROM agent_obs_events WHERE seq > ${after_seq}::bigint ORDER BY agent_obs_events.seq LIMIT ${limit}`;
}

/** Events after `after_seq` in `scope` (and of `monitor_id` when given), oldest first, at most `limit` (one client's catch-up). */
export async function scopedEventsAfter(sql: Sql, scope: OwnerScope, monitor_id: string | null, after_seq: string, limit: number): Promise<AgentObsEventRow[]> {
  return sql<AgentObsEventRow[]>`
    SELECT ${COLUMNS(sql)} FROM agent_obs_events WHERE seq > ${after_seq}::bigint AND ${ownedBy(sql, scope)}
      ${monitor_id === null ? sql`` : sql`AND monitor_id = ${monitor_id}`}
    ORDER BY agent_obs_events.seq LIMIT ${limit}`;
}

/** The seq of event `id`, or null when there is none. */
export async function eventSeq(sql: Sql, id: string): Promise<string | null> {
  const [row] = await sql<{ seq: string }[]>`SELECT seq::text AS seq FROM agent_obs_events WHERE id = ${id}`;
  return row?.seq ?? null;
}

/** The stream head: the last seq handed out (committed or about to be). */
export async function streamHead(sql: Sql): Promise<string> {
  const [row] = await sql<{ seq: string }[]>`SELECT seq::text AS seq FROM agent_obs_stream_head`;
  return row!.seq;
}
