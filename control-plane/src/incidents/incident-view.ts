import type { Incident, IncidentUpdate, Postmortem } from '@vantage/shared-protocol';
import type { IncidentRow, PostmortemRow, UpdateRow } from './incidents.db.js';

/** An update row as the API returns it. */
export function toIncidentUpdate(u: UpdateRow): IncidentUpdate {
  return { id: u.id, status: u.status, message: u.message, created_at: u.created_at.toISOString() };
}

/** An incident row with its updates (newest first) as the API returns it (docs/api/status-pages.md "Incidents"). */
export function toIncident(row: IncidentRow, updates: UpdateRow[]): Incident {
  return {
    id: row.id, team_id: row.team_id, title: row.title, status: row.status, impact: row.impact,
    status_page_ids: row.status_page_ids, component_ids: row.component_ids, alert_event_id: row.alert_event_id,
    started_at: row.started_at.toISOString(), resolved_at: row.resolved_at?.toISOString() ?? null,
    updates: updates.filter((u) => u.incident_id === row.id).map(toIncidentUpdate),
    created_by: row.user_id, created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString(),
  };
}

/** A postmortem row as the API returns it. */
export function toPostmortem(row: PostmortemRow): Postmortem {
  return { incident_id: row.incident_id, body_md: row.body_md, status: row.status, published_at: row.published_at?.toISOString() ?? null, updated_at: row.updated_at.toISOString() };
}
