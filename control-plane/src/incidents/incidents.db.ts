import { newId, type IncidentImpact, type IncidentStatus } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';
import type { OwnerScope } from '../teams/authorize.js';
import { ownedBy } from '../teams/owner-scope.db.js';

/** An `incidents` row (0067_incidents.sql). */
export interface IncidentRow {
  id: string;
  user_id: string;
  team_id: string | null;
  title: string;
  status: IncidentStatus;
  impact: IncidentImpact;
  status_page_ids: string[];
  component_ids: string[];
  alert_event_id: string | null;
  started_at: Date;
  resolved_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** An `incident_updates` row. */
export interface UpdateRow {
  id: string;
  incident_id: string;
  status: IncidentStatus;
  message: string;
  created_at: Date;
}

/** A `postmortems` row. */
export interface PostmortemRow {
  incident_id: string;
  body_md: string;
  status: 'draft' | 'published';
  published_at: Date | null;
  updated_at: Date;
}

/** The incidents in `scope`, newest first, `limit` at most from `offset`, with the total. */
export async function listIncidents(ex: SqlExecutor, scope: OwnerScope, f: { status?: 'open' | 'resolved'; limit: number; offset: number }): Promise<{ rows: IncidentRow[]; total: number }> {
  const state = f.status === 'open' ? ex`AND status <> 'resolved'` : f.status === 'resolved' ? ex`AND status = 'resolved'` : ex``;
  const [rows, [count]] = await Promise.all([
    ex<IncidentRow[]>`SELECT * FROM incidents WHERE ${ownedBy(ex, scope)} ${state} ORDER BY started_at DESC, id DESC LIMIT ${f.limit} OFFSET ${f.offset}`,
    ex<{ n: number }[]>`SELECT count(*)::int AS n FROM incidents WHERE ${ownedBy(ex, scope)} ${state}`,
  ]);
  return { rows, total: count!.n };
}

/** One incident, or null. */
export async function getIncident(ex: SqlExecutor, id: string): Promise<IncidentRow | null> {
  const [row] = await ex<IncidentRow[]>`SELECT * FROM incidents WHERE id = ${id}`;
  return row ?? null;
}

/** The updates of `incident_ids`, newest first. */
export async function listUpdates(ex: SqlExecutor, incident_ids: string[]): Promise<UpdateRow[]> {
  if (incident_ids.length === 0) return [];
  return ex<UpdateRow[]>`SELECT * FROM incident_updates WHERE incident_id = ANY(${incident_ids}::text[]) ORDER BY created_at DESC, id DESC`;
}

/**
 * Insert an incident and, when `message` is not empty, its first update (run it in a transaction:
 * the caller queues the subscriber notices in the same one). `alert_event_id`: the alert event
 * opening it; a second incident for the same event is not made (@returns null then).
 */
export async function insertIncident(tx: SqlExecutor, f: {
  user_id: string; team_id: string | null; title: string; status: IncidentStatus; impact: IncidentImpact;
  status_page_ids: string[]; component_ids: string[]; message: string; alert_event_id?: string | null;
}): Promise<IncidentRow | null> {
  const [row] = await tx<IncidentRow[]>`
    INSERT INTO incidents (id, user_id, team_id, title, status, impact, status_page_ids, component_ids, alert_event_id, resolved_at)
    VALUES (${newId('incident')}, ${f.user_id}, ${f.team_id}, ${f.title}, ${f.status}, ${f.impact}, ${f.status_page_ids}::text[], ${f.component_ids}::text[],
      ${f.alert_event_id ?? null}, ${f.status === 'resolved' ? tx`now()` : null})
    ON CONFLICT (alert_event_id) DO NOTHING RETURNING *`;
  if (!row) return null;
  if (f.message !== '') await tx`INSERT INTO incident_updates (id, incident_id, status, message) VALUES (${newId('incident_update')}, ${row.id}, ${f.status}, ${f.message})`;
  return row;
}

/** Change an incident's title, impact and links. @returns the row, or null when it is gone */
export async function updateIncident(ex: SqlExecutor, id: string, f: Pick<IncidentRow, 'title' | 'impact' | 'status_page_ids' | 'component_ids'>): Promise<IncidentRow | null> {
  const [row] = await ex<IncidentRow[]>`
    UPDATE incidents SET title = ${f.title}, impact = ${f.impact}, status_page_ids = ${f.status_page_ids}::text[],
      component_ids = ${f.component_ids}::text[], updated_at = now()
    WHERE id = ${id} RETURNING *`;
  return row ?? null;
}

/**
 * Add an update and move the incident to its status (resolved sets resolved_at; any other
 * status reopens it); run it in a transaction. @returns the incident and the update, or null when gone
 */
export async function addUpdate(tx: SqlExecutor, incident_id: string, status: IncidentStatus, message: string): Promise<{ incident: IncidentRow; update: UpdateRow } | null> {
  const [incident] = await tx<IncidentRow[]>`
    UPDATE incidents SET status = ${status}, updated_at = now(),
      resolved_at = ${status === 'resolved' ? tx`coalesce(resolved_at, now())` : null}
    WHERE id = ${incident_id} RETURNING *`;
  if (!incident) return null;
  const [update] = await tx<UpdateRow[]>`
    INSERT INTO incident_updates (id, incident_id, status, message) VALUES (${newId('incident_update')}, ${incident_id}, ${status}, ${message}) RETURNING *`;
  return { incident, update: update! };
}

/** Delete an incident with its updates and postmortem. @returns whether it existed */
export async function deleteIncident(ex: SqlExecutor, id: string): Promise<boolean> {
  return (await ex`DELETE FROM incidents WHERE id = ${id} RETURNING id`).length > 0;
}

/** The postmortem of an incident, or null. */
export async function getPostmortem(ex: SqlExecutor, incident_id: string): Promise<PostmortemRow | null> {
  const [row] = await ex<PostmortemRow[]>`SELECT * FROM postmortems WHERE incident_id = ${incident_id}`;
  return row ?? null;
}

/** Write an incident's postmortem; `published_at` is set the first time it is published and kept. */
export async function putPostmortem(ex: SqlExecutor, incident_id: string, body_md: string, status: 'draft' | 'published'): Promise<PostmortemRow> {
  const [row] = await ex<PostmortemRow[]>`
    INSERT INTO postmortems (incident_id, body_md, status, published_at)
    VALUES (${incident_id}, ${body_md}, ${status}, ${status === 'published' ? ex`now()` : null})
    ON CONFLICT (incident_id) DO UPDATE SET body_md = EXCLUDED.body_md, status = EXCLUDED.status, updated_at = now(),
      published_at = CASE WHEN EXCLUDED.status = 'published' THEN coalesce(postmortems.published_at, now()) ELSE NULL END
    RETURNING *`;
  return row!;
}

/**
 * The incidents a page shows: those still open, and those resolved since `resolved_since`, newest
 * first (at most `limit`), with the Markdown of their published postmortems.
 */
export async function pageIncidents(ex: SqlExecutor, page_id: string, resolved_since: Date, limit: number): Promise<Array<IncidentRow & { postmortem_md: string | null }>> {
  return ex<Array<IncidentRow & { postmortem_md: string | null }>>`
    SELECT i.*, p.body_md AS postmortem_md FROM incidents i
    LEFT JOIN postmortems p ON p.incident_id = i.id AND p.status = 'published'
    WHERE ${page_id} = ANY(i.status_page_ids) AND (i.resolved_at IS NULL OR i.resolved_at >= ${resolved_since})
    ORDER BY i.started_at DESC, i.id DESC LIMIT ${limit}`;
}

/** Which of `page_ids` are pages owned exactly by `owner`, and the components of those pages. */
export async function ownedPagesAndComponents(ex: SqlExecutor, owner: { user_id: string; team_id: string | null }, page_ids: string[]): Promise<{ pages: Set<string>; components: Map<string, string> }> {
  if (page_ids.length === 0) return { pages: new Set(), components: new Map() };
  const same = owner.team_id === null ? ex`p.team_id IS NULL AND p.user_id = ${owner.user_id}` : ex`p.team_id = ${owner.team_id}`;
  const rows = await ex<{ page_id: string; component_id: string | null }[]>`
    SELECT p.id AS page_id, c.id AS component_id FROM status_pages p LEFT JOIN status_page_components c ON c.page_id = p.id
    WHERE p.id = ANY(${page_ids}::text[]) AND ${same}`;
  const components = new Map<string, string>();
  for (const r of rows) if (r.component_id) components.set(r.component_id, r.page_id);
  return { pages: new Set(rows.map((r) => r.page_id)), components };
}

/** An alert event that should open an incident: firing or acknowledged, not suppressed, its policy naming status pages, no incident yet. */
export interface AlertToOpen {
  event_id: string;
  type: 'down' | 'degraded' | 'no_data';
  started_at: Date;
  monitor_id: string;
  monitor_name: string;
  group_id: string | null;
  user_id: string;
  team_id: string | null;
  status_page_ids: string[];
}

/** The alert events (up to `limit`) that should have an incident and have none yet (see AlertToOpen). */
export async function alertsWithoutIncident(ex: SqlExecutor, limit: number): Promise<AlertToOpen[]> {
  return ex<AlertToOpen[]>`
    SELECT e.id AS event_id, e.type, e.started_at, m.id AS monitor_id, m.name AS monitor_name, m.group_id,
      p.user_id, p.team_id, p.incident_status_page_ids AS status_page_ids
    FROM alert_events e JOIN alert_policies p ON p.id = e.policy_id JOIN monitors m ON m.id = e.monitor_id
    WHERE e.status <> 'resolved' AND e.suppressed IS NULL AND cardinality(p.incident_status_page_ids) > 0
      AND NOT EXISTS (SELECT 1 FROM incidents i WHERE i.alert_event_id = e.id)
    ORDER BY e.fired_at LIMIT ${limit}`;
}

/** The components of `page_ids` (owned by `owner`) that show `monitor_id` or its group. */
export async function componentsShowing(ex: SqlExecutor, owner: { user_id: string; team_id: string | null }, page_ids: string[], monitor_id: string, group_id: string | null): Promise<{ page_ids: string[]; component_ids: string[] }> {
  const same = owner.team_id === null ? ex`p.team_id IS NULL AND p.user_id = ${owner.user_id}` : ex`p.team_id = ${owner.team_id}`;
  const rows = await ex<{ page_id: string; component_id: string | null }[]>`
    SELECT p.id AS page_id, c.id AS component_id FROM status_pages p
    LEFT JOIN status_page_components c ON c.page_id = p.id AND (c.monitor_id = ${monitor_id} OR (c.group_id IS NOT NULL AND c.group_id = ${group_id}))
    WHERE p.id = ANY(${page_ids}::text[]) AND ${same}`;
  return { page_ids: [...new Set(rows.map((r) => r.page_id))], component_ids: rows.flatMap((r) => r.component_id ?? []) };
}

/** Open incidents whose alert event is resolved (up to `limit`). */
export async function incidentsOfResolvedAlerts(ex: SqlExecutor, limit: number): Promise<IncidentRow[]> {
  return ex<IncidentRow[]>`
    SELECT i.* FROM incidents i JOIN alert_events e ON e.id = i.alert_event_id
    WHERE i.alert_event_id IS NOT NULL AND i.status <> 'resolved' AND e.status = 'resolved'
    ORDER BY i.started_at LIMIT ${limit}`;
}

/**
 * Resolve an incident opened by an alert, once: the update is written only by the call that moved
 * it to resolved (any number of instances may try); run it in a transaction.
 * @returns the incident, or null when it was resolved already
 */
export async function resolveAlertIncident(tx: SqlExecutor, id: string, message: string): Promise<IncidentRow | null> {
  const [row] = await tx<IncidentRow[]>`
    UPDATE incidents SET status = 'resolved', resolved_at = now(), updated_at = now() WHERE id = ${id} AND status <> 'resolved' RETURNING *`;
  if (!row) return null;
  await tx`INSERT INTO incident_updates (id, incident_id, status, message) VALUES (${newId('incident_update')}, ${id}, 'resolved', ${message})`;
  return row;
}
