import type { AppDeps } from '../deps.js';
import { shownMonitors, windowsBetween } from './public-view.db.js';
import { MAINTENANCE_AHEAD_MS, pageMaintenance } from './public-view.js';
import { queueSubscriberNotices } from './subscriber-notices.js';
import { claimMaintenanceNotice, pagesWithSubscribers } from './subscribers.db.js';
import { listComponents } from './status-pages.db.js';

/**
 * Maintenance notices to subscribers (docs/api/status-pages.md "Subscribers"): for every page
 * with confirmed subscribers, each occurrence of a maintenance window covering one of its
 * components is announced once, when its advance notice begins (`advance_notice_minutes` before
 * it starts; at its start when 0), as e-mail and `maintenance.scheduled` webhook. The claim row
 * and the notices commit together, so any number of instances send it once.
 * @returns how many occurrences were announced
 */
export async function sendMaintenanceNotices(deps: Pick<AppDeps, 'sql' | 'config' | 'mail'>, now: Date): Promise<number> {
  let announced = 0;
  for (const page of await pagesWithSubscribers(deps.sql)) {
    const components = await listComponents(deps.sql, [page.id]);
    const monitors = await shownMonitors(deps.sql, components.flatMap((c) => c.monitor_id ?? []), components.flatMap((c) => c.group_id ?? []));
    const found = await windowsBetween(deps.sql, page, now, new Date(now.getTime() + MAINTENANCE_AHEAD_MS));
    const membersOf = (c: { monitor_id: string | null; group_id: string | null }) => monitors.filter((m) => (c.monitor_id !== null ? m.id === c.monitor_id : m.group_id === c.group_id));
    for (const o of pageMaintenance(found, components, membersOf, now)) {
      if (o.starts_at.getTime() - o.advance_notice_minutes * 60_000 > now.getTime()) continue;
      const names = components.filter((c) => o.component_ids.includes(c.id)).map((c) => c.display_name);
      const sent = await deps.sql.begin(async (tx) => {
        if (!(await claimMaintenanceNotice(tx, page.id, o.window_id, o.starts_at))) return false;
        await queueSubscriberNotices(deps, tx, [page.id], {
          type: 'maintenance.scheduled',
          subject: `Scheduled maintenance: ${o.title ?? names.join(', ')}`,
          paragraphs: [`${o.title ?? 'Maintenance'} from ${o.starts_at.toISOString()} to ${o.ends_at.toISOString()} (UTC).`, `Affected: ${names.join(', ')}.`],
          data: { maintenance: { title: o.title, starts_at: o.starts_at.toISOString(), ends_at: o.ends_at.toISOString(), component_ids: o.component_ids } },
        });
        return true;
      });
      if (sent) announced++;
    }
  }
  return announced;
}
