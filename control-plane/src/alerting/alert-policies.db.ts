import { newId, type AlertPolicy } from '@vantage/shared-protocol';
import type { Sql } from '../db/sql.js';
import type { OwnerScope } from '../teams/authorize.js';
import { ownedBy } from '../teams/owner-scope.db.js';

/** An `alert_policies` row with its channels and escalation levels gathered. */
export interface AlertPolicyRow {
  id: string;
  user_id: string;
  /** The owning team (0046_teams.sql), null when personal. */
  team_id: string | null;
  monitor_id: string;
  name: string;
  enabled: boolean;
  delay_s: number;
  recovery_n: number;
  mute_start: string | null;
  mute_end: string | null;
  title_template: string | null;
  body_template: string | null;
  fire_on_degraded: boolean;
  notify_on_no_data: boolean;
  /** Status pages an event of the policy opens an incident on (incidents/alert-incidents.ts). */
  incident_status_page_ids: string[];
  created_at: Date;
  updated_at: Date;
  channel_ids: string[];
  escalation_levels: Array<{ id: string; level_index: number; after_seconds: number; channel_ids: string[]; schedule_ids: string[] }>;
}

/** A policy's stored fields as written by create and update. */
export type PolicyFields = Omit<AlertPolicy, 'id' | 'user_id' | 'team_id' | 'created_at' | 'updated_at' | 'escalation_levels'> & {
  escalation_levels: Array<{ level_index: number; after_seconds: number; channel_ids: string[]; schedule_ids: string[] }>;
};

const SELECT_POLICY = (sql: Sql) => sql`
  SELECT p.*,
    coalesce((SELECT array_agg(c.channel_id ORDER BY c.position) FROM alert_policy_channels c WHERE c.policy_id = p.id AND c.level_id IS NULL), '{}') AS channel_ids,
    coalesce((SELECT json_agg(json_build_object('id', l.id, 'level_index', l.level_index, 'after_seconds', l.after_seconds,
        'channel_ids', (SELECT coalesce(array_agg(c.channel_id ORDER BY c.position), '{}') FROM alert_policy_channels c WHERE c.level_id = l.id),
        'schedule_ids', (SELECT coalesce(array_agg(s.schedule_id ORDER BY s.position), '{}') FROM alert_escalation_level_schedules s WHERE s.level_id = l.id))
      ORDER BY l.level_index) FROM alert_escalation_levels l WHERE l.policy_id = p.id), '[]') AS escalation_levels
  FROM alert_policies p`;

/** The policies of the owners in `scope` (teams/authorize.ts ownerScope; optionally of one monitor), oldest first. */
export async function listPolicies(sql: Sql, scope: OwnerScope, monitor_id?: string): Promise<AlertPolicyRow[]> {
  return sql<AlertPolicyRow[]>`${SELECT_POLICY(sql)} WHERE ${ownedBy(sql, scope, 'p')} ${monitor_id ? sql`AND p.monitor_id = ${monitor_id}` : sql``} ORDER BY p.created_at, p.id`;
}

/** A policy by id, or null (routes then authorize on its user_id/team_id). */
export async function getPolicy(sql: Sql, id: string): Promise<AlertPolicyRow | null> {
  const [row] = await sql<AlertPolicyRow[]>`${SELECT_POLICY(sql)} WHERE p.id = ${id}`;
  return row ?? null;
}

/** The enabled policies of a monitor (the alert engine's lookup on a state change). */
export async function policiesOfMonitor(sql: Sql, monitor_id: string): Promise<AlertPolicyRow[]> {
  return sql<AlertPolicyRow[]>`${SELECT_POLICY(sql)} WHERE p.monitor_id = ${monitor_id} AND p.enabled ORDER BY p.created_at, p.id`;
}

import type { SqlExecutor } from '../contracts.js';
type Tx = SqlExecutor;

async function writeChannels(tx: Tx, policy_id: string, f: Pick<PolicyFields, 'channel_ids' | 'escalation_levels'>): Promise<void> {
  await tx`DELETE FROM alert_escalation_levels WHERE policy_id = ${policy_id}`;
  await tx`DELETE FROM alert_policy_channels WHERE policy_id = ${policy_id}`;
  const rows: Array<{ policy_id: string; level_id: string | null; channel_id: string; position: number }> =
    f.channel_ids.map((channel_id, position) => ({ policy_id, level_id: null, channel_id, position }));
  for (const level of f.escalation_levels) {
    const id = newId('escalation_level');
    await tx`INSERT INTO alert_escalation_levels (id, policy_id, level_index, after_seconds) VALUES (${id}, ${policy_id}, ${level.level_index}, ${level.after_seconds})`;
    rows.push(...level.channel_ids.map((channel_id, position) => ({ policy_id, level_id: id, channel_id, position })));
    const schedules = level.schedule_ids.map((schedule_id, position) => ({ level_id: id, schedule_id, position }));
    if (schedules.length > 0) await tx`INSERT INTO alert_escalation_level_schedules ${tx(schedules)}`;
  }
  if (rows.length > 0) await tx`INSERT INTO alert_policy_channels ${tx(rows)}`;
}

/** Insert a policy of `owner` with its channels and levels. @returns its id, or `conflict` when the monitor has a policy of that name */
export async function insertPolicy(sql: Sql, owner: { user_id: string; team_id: string | null }, f: PolicyFields): Promise<string | 'conflict'> {
  const id = newId('alert_policy');
  return sql.begin(async (tx) => {
    const [row] = await tx`
      INSERT INTO alert_policies (id, user_id, team_id, monitor_id, name, enabled, delay_s, recovery_n, mute_start, mute_end, title_template, body_template, fire_on_degraded, notify_on_no_data, incident_status_page_ids)
      VALUES (${id}, ${owner.user_id}, ${owner.team_id}, ${f.monitor_id}, ${f.name}, ${f.enabled}, ${f.delay_s}, ${f.recovery_n}, ${f.mute_start}, ${f.mute_end}, ${f.title_template}, ${f.body_template}, ${f.fire_on_degraded}, ${f.notify_on_no_data}, ${f.incident_status_page_ids}::text[])
      ON CONFLICT DO NOTHING RETURNING id`;
    if (!row) return 'conflict' as const;
    await writeChannels(tx as Tx, id, f);
    return id;
  });
}

/**
 * Replace a policy's fields (the route merged the PATCH over the stored policy); channels and
 * levels are rewritten (the route authorized the change; `team_id` given: a move, teams/move.ts). @returns `ok`, `missing` or `conflict`
 */
export async function updatePolicy(sql: Sql, id: string, f: PolicyFields, team_id?: string | null): Promise<'ok' | 'missing' | 'conflict'> {
  return sql.begin(async (tx) => {
    const [clash] = await tx`SELECT id FROM alert_policies WHERE monitor_id = ${f.monitor_id} AND lower(name) = lower(${f.name}) AND id <> ${id}`;
    if (clash) return 'conflict' as const;
    const [row] = await tx`
      UPDATE alert_policies SET monitor_id = ${f.monitor_id}, name = ${f.name}, enabled = ${f.enabled}, delay_s = ${f.delay_s},
        recovery_n = ${f.recovery_n}, mute_start = ${f.mute_start}, mute_end = ${f.mute_end},
        title_template = ${f.title_template}, body_template = ${f.body_template}, fire_on_degraded = ${f.fire_on_degraded},
        notify_on_no_data = ${f.notify_on_no_data}, incident_status_page_ids = ${f.incident_status_page_ids}::text[], team_id = ${team_id === undefined ? tx`team_id` : team_id}, updated_at = now()
      WHERE id = ${id} RETURNING id`;
    if (!row) return 'missing' as const;
    await writeChannels(tx as Tx, id, f);
    return 'ok' as const;
  });
}

/** Delete a policy (the route authorized it). @returns whether it existed */
export async function deletePolicy(sql: Sql, id: string): Promise<boolean> {
  const rows = await sql`DELETE FROM alert_policies WHERE id = ${id} RETURNING id`;
  return rows.length > 0;
}

/** Which of `page_ids` are status pages in `scope` (a policy's own owner: route-kit.ts sameOwner). */
export async function ownedStatusPageIds(sql: Sql, scope: OwnerScope, page_ids: string[]): Promise<Set<string>> {
  if (page_ids.length === 0) return new Set();
  const rows = await sql<{ id: string }[]>`SELECT id FROM status_pages WHERE id = ANY(${page_ids}::text[]) AND ${ownedBy(sql, scope)}`;
  return new Set(rows.map((r) => r.id));
}

/** Whether `monitor_id` is a monitor in `scope` (a policy's or silence's own owner: route-kit.ts sameOwner). */
export async function ownsMonitor(sql: Sql, scope: OwnerScope, monitor_id: string): Promise<boolean> {
  const rows = await sql`SELECT 1 FROM monitors WHERE id = ${monitor_id} AND ${ownedBy(sql, scope)}`;
  return rows.length > 0;
}
