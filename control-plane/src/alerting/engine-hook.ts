import { newId } from '@vantage/shared-protocol';
import type { StatePass, StatePassListener } from '../checks/hooks.js';
import type { SqlExecutor } from '../contracts.js';
import { enabledPolicies, hasOpenEvent, insertEvent } from './alert-events.db.js';

/** The NOTIFY channel that wakes the alert engines (engine.ts startAlertEngine) when a monitor starts or stops failing. */
export const ALERT_ENGINE_WAKE_CHANNEL = 'vantage_alert_engine';

/**
 * The alert engine's state-change subscriber (checks/hooks.ts).
 *
 * It wakes the engines: a pass that moved a monitor into or out of down, degraded or no_data NOTIFYs
 * `ALERT_ENGINE_WAKE_CHANNEL` (delivered when the verdict transaction commits), so a page does
 * not wait for the engine's next tick.
 *
 * It records outages learnt late. When results buffered by nodes show the monitor was down (or
 * degraded, for policies that fire on it) and is already up again, paging now would be a stale
 * storm: each enabled policy records the outage as an event that is resolved already, marked
 * `suppressed: late`, and nobody is paged. A late outage still going on is left to the engine,
 * which pages once for it.
 */
export function lateOutageListener(): StatePassListener {
  return async (passes, tx) => {
    const failing = (state: string) => state === 'down' || state === 'degraded' || state === 'no_data';
    // One NOTIFY per pass: Postgres folds a channel's identical notifications of one transaction
    // into one anyway.
    if (passes.some((p) => p.state !== p.previous_state && (failing(p.state) || failing(p.previous_state)))) {
      await tx`SELECT pg_notify(${ALERT_ENGINE_WAKE_CHANNEL}, '')`;
    }
    for (const pass of passes) await recordLateOutages(pass, tx);
  };
}

/** The late outages of one monitor's pass, recorded as resolved, suppressed events (see lateOutageListener). */
async function recordLateOutages(pass: StatePass, tx: SqlExecutor): Promise<void> {
  if (pass.state !== 'up') return;
  const changes = pass.changes;
  for (let i = 0; i < changes.length; i++) {
    const c = changes[i]!;
    if (!c.late || (c.to_state !== 'down' && c.to_state !== 'degraded')) continue;
    const end = changes.slice(i + 1).find((n) => n.to_state === 'up');
    if (!end) continue;
    const now = new Date();
    for (const p of await enabledPolicies(tx, pass.monitor.id)) {
      if (c.to_state === 'degraded' && !p.fire_on_degraded) continue;
      if (await hasOpenEvent(tx, p.id, pass.monitor.id)) continue;
      await insertEvent(tx, {
        id: newId('alert_event'), user_id: pass.monitor.user_id, policy_id: p.id, monitor_id: pass.monitor.id, type: c.to_state,
        status: 'resolved', started_at: new Date(c.changed_at), fired_at: now, acknowledged_at: null, acknowledged_by: null,
        resolved_at: new Date(end.changed_at), resolved_by: null, notified_at: null, next_level: null, next_due_at: null,
        suppressed: 'late', metadata: { reason: c.reason, failing_nodes: c.failing_nodes, late: true },
      }, now);
    }
  }
}
