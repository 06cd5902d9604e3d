import type { SqlExecutor } from '../contracts.js';
import type { Sql } from '../db/sql.js';
import type { OwnerScope } from '../teams/authorize.js';
import { ownedBy } from '../teams/owner-scope.db.js';

/** An `agent_obs_monitors` row (0071_agent_obs.sql); money as numbers (USD). */
export interface AgentObsMonitorRow {
  id: string;
  monitor_id: string;
  user_id: string;
  team_id: string | null;
  agent_name: string;
  type: 'llm' | 'tool' | 'rag' | 'other';
  endpoint_url: string;
  frequency_seconds: number;
  failure_threshold: Record<string, unknown>;
  budget_per_check_usd: number | null;
  budget_monthly_usd: number | null;
  step_name: string | null;
  endpoint_config: Record<string, unknown>;
  notification_channels: string[];
  check_options: Record<string, unknown>;
  config_created_at: Date;
  config_updated_at: Date;
  status: 'active' | 'paused' | 'exceeded_budget';
  paused_at: Date | null;
  /** The month's total (0 when the stored month is not the current UTC month). */
  total_cost_this_month_usd: number;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = (ex: SqlExecutor) => ex`
  id, monitor_id, user_id, team_id, agent_name, type, endpoint_url, frequency_seconds, failure_threshold,
  budget_per_check_usd::float8 AS budget_per_check_usd, budget_monthly_usd::float8 AS budget_monthly_usd, step_name,
  endpoint_config, notification_channels, check_options, config_created_at, config_updated_at, status, paused_at,
  (CASE WHEN cost_month = date_trunc('month', now() AT TIME ZONE 'UTC')::date THEN total_cost_usd ELSE 0 END)::float8 AS total_cost_this_month_usd,
  created_at, updated_at`;

/** Fields a client sets (create, PATCH). */
export type AgentObsFields = Pick<AgentObsMonitorRow,
  'agent_name' | 'endpoint_url' | 'frequency_seconds' | 'failure_threshold' | 'budget_per_check_usd' | 'budget_monthly_usd'
  | 'step_name' | 'endpoint_config' | 'notification_channels' | 'check_options'>;

/** Insert an agent-obs monitor backed by monitor `monitor_id` (inserted before, in `tx`). */
export async function insertAgentObsMonitor(
  tx: SqlExecutor, m: AgentObsFields & { id: string; monitor_id: string; user_id: string; team_id: string | null; type: AgentObsMonitorRow['type'] },
): Promise<AgentObsMonitorRow> {
  const [row] = await tx<AgentObsMonitorRow[]>`
    INSERT INTO agent_obs_monitors (id, monitor_id, user_id, team_id, agent_name, type, endpoint_url, frequency_seconds, failure_threshold,
      budget_per_check_usd, budget_monthly_usd, step_name, endpoint_config, notification_channels, check_options)
    VALUES (${m.id}, ${m.monitor_id}, ${m.user_id}, ${m.team_id}, ${m.agent_name}, ${m.type}, ${m.endpoint_url}, ${m.frequency_seconds},
      ${tx.json(m.failure_threshold as never)}, ${m.budget_per_check_usd}, ${m.budget_monthly_usd}, ${m.step_name},
      ${tx.json(m.endpoint_config as never)}, ${m.notification_channels}, ${tx.json(m.check_options as never)})
    RETURNING ${COLUMNS(tx)}`;
  return row!;
}

/** The agent-obs monitor `id`, or null. */
export async function findAgentObsMonitor(ex: SqlExecutor, id: string): Promise<AgentObsMonitorRow | null> {
  const [row] = await ex<AgentObsMonitorRow[]>`SELECT ${COLUMNS(ex)} FROM agent_obs_monitors WHERE id = ${id}`;
  return row ?? null;
}

/** The agent-obs monitors in `scope`, newest first. */
export async function listAgentObsMonitors(sql: Sql, scope: OwnerScope): Promise<AgentObsMonitorRow[]> {
  return sql<AgentObsMonitorRow[]>`SELECT ${COLUMNS(sql)} FROM agent_obs_monitors WHERE ${ownedBy(sql, scope)} ORDER BY created_at DESC, id DESC LIMIT 1000`;
}

/** Ids of the agent-obs monitors in `scope` (stream and event filters). */
export async function agentObsMonitorIds(sql: Sql, scope: OwnerScope): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`SELECT id FROM agent_obs_monitors WHERE ${ownedBy(sql, scope)}`;
  return rows.map((r) => r.id);
}

/** Replace the client fields of `id`; `config_changed` also stamps config_updated_at. */
export async function updateAgentObsMonitor(tx: SqlExecutor, id: string, m: AgentObsFields, config_changed: boolean): Promise<AgentObsMonitorRow | null> {
  const [row] = await tx<AgentObsMonitorRow[]>`
    UPDATE agent_obs_monitors SET agent_name = ${m.agent_name}, endpoint_url = ${m.endpoint_url}, frequency_seconds = ${m.frequency_seconds},
      failure_threshold = ${tx.json(m.failure_threshold as never)}, budget_per_check_usd = ${m.budget_per_check_usd},
      budget_monthly_usd = ${m.budget_monthly_usd}, step_name = ${m.step_name}, endpoint_config = ${tx.json(m.endpoint_config as never)},
      notification_channels = ${m.notification_channels}, check_options = ${tx.json(m.check_options as never)},
      config_updated_at = CASE WHEN ${config_changed} THEN now() ELSE config_updated_at END, updated_at = now()
    WHERE id = ${id}
    RETURNING ${COLUMNS(tx)}`;
  return row ?? null;
}

/**
 * Move `id` from one of `from` to `to` (paused_at set when pausing, cleared when resuming), and
 * its backing monitor to the matching monitor status in the same transaction.
 * @returns the row after, or null when it is not in one of `from`
 */
export async function moveAgentObsStatus(sql: Sql, id: string, from: AgentObsMonitorRow['status'][], to: AgentObsMonitorRow['status']): Promise<AgentObsMonitorRow | null> {
  return sql.begin(async (tx) => {
    const [row] = await tx<AgentObsMonitorRow[]>`
      UPDATE agent_obs_monitors SET status = ${to}, paused_at = CASE WHEN ${to} = 'active' THEN NULL ELSE now() END, updated_at = now()
      WHERE id = ${id} AND status = ANY(${from}::text[])
      RETURNING ${COLUMNS(tx)}`;
    if (!row) return null;
    await setBackingMonitorStatus(tx, row.monitor_id, to === 'active' ? 'active' : 'paused');
    return row;
  });
}

/** Set the backing monitor's status (state pending when it runs again, paused when not). */
export async function setBackingMonitorStatus(tx: SqlExecutor, monitor_id: string, status: 'active' | 'paused'): Promise<void> {
  await tx`
    UPDATE monitors SET status = ${status}, state = ${status === 'active' ? 'pending' : 'paused'}, state_changed_at = now(),
      revision = revision + 1, updated_at = now()
    WHERE id = ${monitor_id} AND status <> ${status}`;
}

/** Delete `id` with its backing monitor. @returns the nodes the monitor was placed on, or null when it is gone */
export async function deleteAgentObsMonitor(sql: Sql, id: string): Promise<string[] | null> {
  return sql.begin(async (tx) => {
    const [row] = await tx<{ monitor_id: string }[]>`DELETE FROM agent_obs_monitors WHERE id = ${id} RETURNING monitor_id`;
    if (!row) return null;
    const nodes = await tx<{ node_id: string }[]>`SELECT node_id FROM monitor_placements WHERE monitor_id = ${row.monitor_id} AND ended_at IS NULL`;
    await tx`DELETE FROM monitors WHERE id = ${row.monitor_id}`;
    return nodes.map((n) => n.node_id);
  });
}
