import { newId, newSecret, type DashboardLayout, type DashboardTemplate, type Widget } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';
import type { Sql } from '../db/sql.js';
import type { Owner, OwnerScope } from '../teams/authorize.js';
import { ownedBy } from '../teams/owner-scope.db.js';

/** A `dashboards` row (0075_dashboards.sql). `widgets` as stored (ids always set). */
export interface DashboardRow {
  id: string;
  user_id: string;
  team_id: string | null;
  name: string;
  description: string;
  template_key: DashboardTemplate | null;
  layout: DashboardLayout;
  widgets: Widget[];
  is_public: boolean;
  share_token: string;
  version: number;
  created_at: Date;
  updated_at: Date;
}

/** The fields a PATCH may change. */
export type DashboardFields = Partial<Pick<DashboardRow, 'name' | 'description' | 'layout' | 'is_public'>>;

/** A versioned write's outcome: the new row, `missing`, or the version it found instead of the expected one. */
export type VersionedWrite = DashboardRow | 'missing' | { conflict: number };

/** The dashboards in `scope`, oldest first (widgets included: widget_count is their length). */
export async function listDashboards(ex: SqlExecutor, scope: OwnerScope): Promise<DashboardRow[]> {
  return ex<DashboardRow[]>`SELECT * FROM dashboards WHERE ${ownedBy(ex, scope)} ORDER BY created_at, id`;
}

/** One dashboard by id, or null. */
export async function getDashboard(ex: SqlExecutor, id: string): Promise<DashboardRow | null> {
  const [row] = await ex<DashboardRow[]>`SELECT * FROM dashboards WHERE id = ${id}`;
  return row ?? null;
}

/** The public dashboard of `share_token`, or null when there is none or it is not public. */
export async function getSharedDashboard(ex: SqlExecutor, share_token: string): Promise<DashboardRow | null> {
  const [row] = await ex<DashboardRow[]>`SELECT * FROM dashboards WHERE share_token = ${share_token} AND is_public`;
  return row ?? null;
}

/** Insert a dashboard (version 1) with a fresh share token. */
export async function insertDashboard(
  ex: SqlExecutor, owner: Owner,
  f: Pick<DashboardRow, 'name' | 'description' | 'template_key' | 'layout' | 'widgets' | 'is_public'>,
): Promise<DashboardRow> {
  const [row] = await ex<DashboardRow[]>`
    INSERT INTO dashboards ${ex({
      id: newId('dashboard'), user_id: owner.user_id, team_id: owner.team_id, name: f.name, description: f.description,
      template_key: f.template_key, layout: ex.json(f.layout as never) as never, widgets: ex.json(f.widgets as never) as never,
      is_public: f.is_public, share_token: newSecret('dashboard_share_token'),
    })} RETURNING *`;
  return row!;
}

/**
 * One versioned change (optimistic concurrency, docs/api/dashboards.md "Versions"): the row's
 * version goes up by one with `set` applied, only when it is still `expected_version` (any
 * version when undefined). In one statement: of two writers naming the same version, exactly
 * one succeeds.
 */
async function versionedUpdate(sql: Sql, id: string, expected_version: number | undefined, set: Record<string, unknown>): Promise<VersionedWrite> {
  const where = sql`WHERE id = ${id} ${expected_version === undefined ? sql`` : sql`AND version = ${expected_version}`} RETURNING *`;
  // A change of nothing still counts as one (a PATCH with only expected_version).
  const [row] = Object.keys(set).length > 0
    ? await sql<DashboardRow[]>`UPDATE dashboards SET ${sql(set as never)}, version = version + 1, updated_at = now() ${where}`
    : await sql<DashboardRow[]>`UPDATE dashboards SET version = version + 1, updated_at = now() ${where}`;
  if (row) return row;
  const [now] = await sql<{ version: number }[]>`SELECT version FROM dashboards WHERE id = ${id}`;
  return now ? { conflict: now.version } : 'missing';
}

/** Change name, description, layout or is_public (versioned, {@link versionedUpdate}). */
export async function updateDashboard(sql: Sql, id: string, f: DashboardFields, expected_version?: number): Promise<VersionedWrite> {
  const fields: Record<string, unknown> = Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined));
  if (f.layout) fields.layout = sql.json(f.layout as never);
  return versionedUpdate(sql, id, expected_version, fields);
}

/** Replace the widget set (versioned, {@link versionedUpdate}). */
export async function replaceWidgets(sql: Sql, id: string, widgets: Widget[], expected_version?: number): Promise<VersionedWrite> {
  return versionedUpdate(sql, id, expected_version, { widgets: sql.json(widgets as never) });
}

/** Give the dashboard a new share token (the old address stops answering at once); versioned. */
export async function rotateShareToken(sql: Sql, id: string): Promise<VersionedWrite> {
  return versionedUpdate(sql, id, undefined, { share_token: newSecret('dashboard_share_token') });
}

/** Delete a dashboard. @returns whether it existed */
export async function deleteDashboard(ex: SqlExecutor, id: string): Promise<boolean> {
  return (await ex`DELETE FROM dashboards WHERE id = ${id} RETURNING id`).length > 0;
}
