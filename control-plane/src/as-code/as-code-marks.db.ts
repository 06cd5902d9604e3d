import type { AsCodeKind } from '@vantage/shared-protocol';
import type { Sql } from '../db/sql.js';

/** A stored mark (migrations 0076, 0088). */
export interface AsCodeMarkRow {
  user_id: string;
  kind: AsCodeKind;
  resource_id: string;
  key: string;
  source_file: string;
  updated_at: Date;
}

const TABLE: Record<AsCodeKind, string> = {
  monitor_group: 'monitor_groups', alert_channel: 'alert_channels', webhook_endpoint: 'webhook_endpoints', monitor: 'monitors', alert_policy: 'alert_policies',
  alert_silence: 'alert_silences', maintenance_window: 'maintenance_windows', status_page: 'status_pages', dashboard: 'dashboards',
};

/** Whether `resource_id` is a personal (not a team's) resource of `user_id` of that kind. */
export async function ownsResource(sql: Sql, user_id: string, kind: AsCodeKind, resource_id: string): Promise<boolean> {
  const rows = await sql`SELECT 1 FROM ${sql(TABLE[kind])} WHERE id = ${resource_id} AND user_id = ${user_id} AND team_id IS NULL`;
  return rows.length > 0;
}

/** The user's marks of resources that still exist, by kind then key; `kind` filters. */
export async function listMarks(sql: Sql, user_id: string, kind: AsCodeKind | null): Promise<AsCodeMarkRow[]> {
  return sql<AsCodeMarkRow[]>`
    SELECT m.* FROM as_code_marks m
    WHERE m.user_id = ${user_id} AND (${kind}::text IS NULL OR m.kind = ${kind})
      AND (   (m.kind = 'monitor_group' AND EXISTS (SELECT 1 FROM monitor_groups r WHERE r.id = m.resource_id))
           OR (m.kind = 'alert_channel' AND EXISTS (SELECT 1 FROM alert_channels r WHERE r.id = m.resource_id))
           OR (m.kind = 'monitor'       AND EXISTS (SELECT 1 FROM monitors r WHERE r.id = m.resource_id))
           OR (m.kind = 'alert_policy'  AND EXISTS (SELECT 1 FROM alert_policies r WHERE r.id = m.resource_id))
           OR (m.kind = 'webhook_endpoint'   AND EXISTS (SELECT 1 FROM webhook_endpoints r WHERE r.id = m.resource_id))
           OR (m.kind = 'alert_silence'      AND EXISTS (SELECT 1 FROM alert_silences r WHERE r.id = m.resource_id))
           OR (m.kind = 'maintenance_window' AND EXISTS (SELECT 1 FROM maintenance_windows r WHERE r.id = m.resource_id))
           OR (m.kind = 'status_page'        AND EXISTS (SELECT 1 FROM status_pages r WHERE r.id = m.resource_id))
           OR (m.kind = 'dashboard'          AND EXISTS (SELECT 1 FROM dashboards r WHERE r.id = m.resource_id)))
    ORDER BY m.kind, m.key, m.resource_id`;
}

/** Insert or replace a mark. */
export async function upsertMark(sql: Sql, row: Omit<AsCodeMarkRow, 'updated_at'>): Promise<AsCodeMarkRow> {
  const [out] = await sql<AsCodeMarkRow[]>`
    INSERT INTO as_code_marks (user_id, kind, resource_id, key, source_file)
    VALUES (${row.user_id}, ${row.kind}, ${row.resource_id}, ${row.key}, ${row.source_file})
    ON CONFLICT (user_id, kind, resource_id) DO UPDATE SET key = EXCLUDED.key, source_file = EXCLUDED.source_file, updated_at = now()
    RETURNING *`;
  return out!;
}

/** Remove a mark. @returns whether there was one */
export async function deleteMark(sql: Sql, user_id: string, kind: AsCodeKind, resource_id: string): Promise<boolean> {
  const rows = await sql`DELETE FROM as_code_marks WHERE user_id = ${user_id} AND kind = ${kind} AND resource_id = ${resource_id} RETURNING 1`;
  return rows.length > 0;
}
