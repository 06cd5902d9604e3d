import type { Incident } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';
import type { AppDeps } from '../deps.js';
import { queueSubscriberNotices } from '../status-pages/subscriber-notices.js';

const STATUS = { investigating: 'Investigating', identified: 'Identified', monitoring: 'Monitoring', resolved: 'Resolved' } as const;

/**
 * Tell the confirmed subscribers of the incident's pages that it was opened or updated (docs/api/
 * status-pages.md "Subscribers"), queued in `tx` with the change (subscriber-notices.ts): e-mail
 * subject `New incident: <title>` or `<status>: <title>`, webhook type `incident.created` or
 * `incident.updated` with the incident as the public page shows it.
 * @returns how many notices were queued
 */
export async function notifySubscribers(deps: Pick<AppDeps, 'sql' | 'config' | 'mail'>, tx: SqlExecutor, incident: Incident, kind: 'created' | 'updated'): Promise<number> {
  const latest = incident.updates[0];
  const shown = {
    id: incident.id, title: incident.title, status: incident.status, impact: incident.impact, started_at: incident.started_at,
    resolved_at: incident.resolved_at, updates: incident.updates,
  };
  return queueSubscriberNotices(deps, tx, incident.status_page_ids, {
    type: `incident.${kind}`,
    subject: `${kind === 'created' ? 'New incident' : STATUS[incident.status]}: ${incident.title}`,
    paragraphs: [`${STATUS[incident.status]} (impact: ${incident.impact}): ${incident.title}`, ...(latest ? [latest.message] : [])],
    data: { incident: shown },
  });
}
