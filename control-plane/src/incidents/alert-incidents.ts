import type { AppDeps } from '../deps.js';
import { pageCacheOf } from '../status-pages/page-cache.js';
import { alertsWithoutIncident, componentsShowing, incidentsOfResolvedAlerts, insertIncident, listUpdates, resolveAlertIncident } from './incidents.db.js';
import { toIncident } from './incident-view.js';
import { notifySubscribers } from './notify.js';

const BATCH = 100;
const IMPACT = { down: 'major', degraded: 'minor', no_data: 'minor' } as const;
const WHAT = { down: 'is down', degraded: 'is degraded', no_data: 'is not reporting' } as const;

/**
 * Incidents from alerts (docs/api/status-pages.md "Incidents from alerts"): an alert event of a
 * policy with `incident_status_page_ids` that is firing or acknowledged (not suppressed by a
 * silence, mute or maintenance) opens one incident on those pages, affecting the components that
 * show its monitor; when the event resolves, so does the incident. Each is done once whatever
 * the number of instances (a unique alert_event_id; a conditional resolve). Subscribers are told.
 * @returns how many incidents were opened and resolved
 */
export async function syncAlertIncidents(deps: Pick<AppDeps, 'sql' | 'config' | 'mail'>): Promise<{ opened: number; resolved: number }> {
  const cache = pageCacheOf(deps);
  let opened = 0;
  let resolved = 0;
  for (const a of await alertsWithoutIncident(deps.sql, BATCH)) {
    const links = await componentsShowing(deps.sql, a, a.status_page_ids, a.monitor_id, a.group_id);
    const row = await deps.sql.begin(async (tx) => {
      const made = await insertIncident(tx, {
        user_id: a.user_id, team_id: a.team_id, title: `${a.monitor_name} ${WHAT[a.type]}`, status: 'investigating', impact: IMPACT[a.type],
        status_page_ids: links.page_ids, component_ids: links.component_ids, alert_event_id: a.event_id,
        message: `Our monitoring detected that ${a.monitor_name} ${WHAT[a.type]} since ${a.started_at.toISOString()}. We are looking into it.`,
      });
      if (made) await notifySubscribers(deps, tx, toIncident(made, await listUpdates(tx, [made.id])), 'created');
      return made;
    });
    if (!row) continue;
    opened++;
    cache.forgetIds(row.status_page_ids);
  }
  for (const i of await incidentsOfResolvedAlerts(deps.sql, BATCH)) {
    const row = await deps.sql.begin(async (tx) => {
      const done = await resolveAlertIncident(tx, i.id, 'Monitoring shows it working normally again.');
      if (done) await notifySubscribers(deps, tx, toIncident(done, await listUpdates(tx, [done.id])), 'updated');
      return done;
    });
    if (!row) continue;
    resolved++;
    cache.forgetIds(row.status_page_ids);
  }
  return { opened, resolved };
}
