import type { SqlExecutor } from '../contracts.js';

/** What ingest needs of an agent-obs monitor, read under its row lock. */
export interface IngestAgentObsRow {
  id: string;
  monitor_id: string;
  user_id: string;
  team_id: string | null;
  agent_name: string;
  endpoint_url: string;
  status: 'active' | 'paused' | 'exceeded_budget';
  budget_per_check_usd: number | null;
  budget_monthly_usd: number | null;
  notification_channels: string[];
  /** This UTC month's total so far (0 when the stored month is an earlier one). */
  total_usd: number;
  owner_email: string | null;
}

/**
 * The agent-obs monitors backed by `monitor_ids`, locked FOR UPDATE in id order (so concurrent
 * batches of several nodes queue on each monitor and never deadlock): the budget check and the
 * cost update that follow in the same transaction see every earlier check's cost.
 */
export async function lockAgentObsMonitors(tx: SqlExecutor, monitor_ids: string[]): Promise<IngestAgentObsRow[]> {
  return tx<IngestAgentObsRow[]>`
    SELECT a.id, a.monitor_id, a.user_id, a.team_id, a.agent_name, a.endpoint_url, a.status, a.budget_per_check_usd::float8 AS budget_per_check_usd,
      a.budget_monthly_usd::float8 AS budget_monthly_usd, a.notification_channels,
      (CASE WHEN a.cost_month = date_trunc('month', now() AT TIME ZONE 'UTC')::date THEN a.total_cost_usd ELSE 0 END)::float8 AS total_usd,
      (SELECT u.email FROM users u WHERE u.id = a.user_id) AS owner_email
    FROM agent_obs_monitors a WHERE a.monitor_id = ANY(${monitor_ids}::text[])
    ORDER BY a.id FOR UPDATE OF a`;
}

/** Store the month's total of `id` and its status (exceeded_budget also sets paused_at). */
export async function storeMonthTotal(tx: SqlExecutor, id: string, total_usd: number, status: IngestAgentObsRow['status']): Promise<void> {
  await tx`
    UPDATE agent_obs_monitors SET total_cost_usd = ${total_usd}, cost_month = date_trunc('month', now() AT TIME ZONE 'UTC')::date,
      paused_at = CASE WHEN ${status} = 'exceeded_budget' AND status <> 'exceeded_budget' THEN now() ELSE paused_at END,
      status = ${status}, updated_at = now()
    WHERE id = ${id}`;
}

/** The node's region as events report it: its region, else its country code, else null. */
export async function nodeRegion(tx: SqlExecutor, node_id: string): Promise<string | null> {
  const [row] = await tx<{ region: string | null }[]>`SELECT coalesce(region, country) AS region FROM nodes WHERE id = ${node_id}`;
  return row?.region ?? null;
}

/** The alert channels of `ids` that belong to the owner (user_id, team_id) of a monitor. */
export async function ownersChannels(tx: SqlExecutor, ids: string[], owner: { user_id: string; team_id: string | null }): Promise<Array<{ id: string; type: string; user_id: string }>> {
  if (ids.length === 0) return [];
  return tx<Array<{ id: string; type: string; user_id: string }>>`
    SELECT id, type, user_id FROM alert_channels WHERE id = ANY(${ids}::text[])
      AND ${owner.team_id === null ? tx`team_id IS NULL AND user_id = ${owner.user_id}` : tx`team_id = ${owner.team_id}`}`;
}
