import type { OutboundEvent, SqlExecutor } from '../contracts.js';
import type { Owner } from '../teams/authorize.js';

/*
 * Whose endpoints an event goes to (docs/api/webhooks.md "Teams"): the owner of the resource it
 * reports, read in the publishing transaction, so an event of a team's monitor, policy or node
 * reaches the team's endpoints whichever job produced it, and a monitor moved between owners
 * reports to its new owner from the next event on.
 */

/** The resource an event reports, named by its data (shared-protocol events.ts). */
function subjectOf(event: OutboundEvent): { table: 'monitors' | 'alert_policies' | 'nodes'; id: string } | null {
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
 * The owner `{user_id, team_id}` whose endpoints receive `event`: `event.team_id` when the
 * producer gave one; else the team of the monitor (monitor.*, heartbeat.missed, ssl.expiring,
 * domain.expiring), alert policy (alert.*; its monitor when it has no policy) or node (node.*) the
 * event names; else, and for a personal or vanished resource, `event.user_id` alone.
 */
export async function eventOwner(ex: SqlExecutor, event: OutboundEvent): Promise<Owner> {
  if (event.team_id !== undefined) return { user_id: event.user_id, team_id: event.team_id };
  const subject = subjectOf(event);
  if (!subject) return { user_id: event.user_id, team_id: null };
  const [row] = await ex<{ team_id: string | null }[]>`SELECT team_id FROM ${ex(subject.table)} WHERE id = ${subject.id}`;
  return { user_id: event.user_id, team_id: row?.team_id ?? null };
}
