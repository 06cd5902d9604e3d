import type { OutboundEvent, SqlExecutor } from '../contracts.js';
import type { Owner } from '../teams/authorize.js';

/*
 * Whose endpoints an event goes to (docs/api/webhooks.md "Teams"): the owner of the resource it
 * reports, read in the publishing transaction, so an event of a team's monitor, policy or node
 * reaches the team's endpoints whichever job produced it, and a monitor moved between owners
 * reports to its new owner from the next event on.
 */

/**
 * The resource an event reports, named by its data (shared-protocol events.ts). Read before the
 * data is checked against the catalog (webhooks/publisher.ts), so any shape gives an answer.
 */
function subjectOf(event: OutboundEvent): { table: 'monitors' | 'alert_policies' | 'nodes'; id: string } | null {
  if (typeof event.data !== 'object' || event.data === null) return null;
  const data = event.data as { monitor?: { id?: unknown }; alert_event?: { policy_id?: unknown; monitor_id?: unknown }; node?: { id?: unknown } };
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
  const policy = str(data.alert_event?.policy_id);
  if (policy) return { table: 'alert_policies', id: policy };
  const monitor = str(data.alert_event?.monitor_id) ?? str(data.monitor?.id);
  if (monitor) return { table: 'monitors', id: monitor };
  const node = str(data.node?.id);
  if (node) return { table: 'nodes', id: node };
  return null;
}

/**
 * The owner `{user_id, team_id}` whose endpoints receive each of `events`, in their order: the
 * event's `team_id` when the producer gave one; else the team of the monitor (monitor.*,
 * heartbeat.missed, ssl.expiring, domain.expiring), alert policy (alert.*; its monitor when it has
 * no policy) or node (node.*) the event names; else, and for a personal or vanished resource, the
 * event's `user_id` alone. One statement per kind of resource they name, whatever their number.
 */
export async function eventOwners(ex: SqlExecutor, events: OutboundEvent[]): Promise<Owner[]> {
  const subjects = events.map((e) => (e.team_id !== undefined ? null : subjectOf(e)));
  const teams = new Map<string, string | null>();
  for (const table of ['monitors', 'alert_policies', 'nodes'] as const) {
    const ids = [...new Set(subjects.flatMap((s) => (s?.table === table ? [s.id] : [])))];
    if (ids.length === 0) continue;
    const rows = await ex<{ id: string; team_id: string | null }[]>`SELECT id, team_id FROM ${ex(table)} WHERE id = ANY(${ids}::text[])`;
    for (const r of rows) teams.set(`${table}/${r.id}`, r.team_id);
  }
  return events.map((e, i) => {
    if (e.team_id !== undefined) return { user_id: e.user_id, team_id: e.team_id };
    const s = subjects[i];
    return { user_id: e.user_id, team_id: s ? teams.get(`${s.table}/${s.id}`) ?? null : null };
  });
}
