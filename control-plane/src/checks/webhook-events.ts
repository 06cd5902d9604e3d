import type { MonitorState, StateChange } from '@vantage/shared-protocol';
import type { EventPublisher, OutboundEvent } from '../contracts.js';
import type { StatePass, StatePassListener } from './hooks.js';

/** True when a change from `from` to `to` is news for webhook receivers: into down, degraded or no_data, or up again from one of them. */
function worthSending(from: MonitorState, to: MonitorState): to is 'up' | 'degraded' | 'down' | 'no_data' {
  return to === 'down' || to === 'degraded' || to === 'no_data' || (to === 'up' && (from === 'down' || from === 'degraded' || from === 'no_data'));
}

/** The webhook event of change `c` of `pass` (from state `from`; `late`: learnt late, one net change). */
function changeEvent(pass: StatePass, c: StateChange, from: MonitorState, late: boolean): OutboundEvent {
  const to = c.to_state as 'up' | 'degraded' | 'down' | 'no_data';
  return {
    type: `monitor.${to}`, user_id: pass.monitor.user_id, occurred_at: new Date(c.changed_at),
    data: {
      monitor: { id: pass.monitor.id, name: pass.monitor.name, type: pass.monitor.type, target: pass.monitor.target ?? '' },
      status: to, previous_status: from, reason: c.reason, failing_nodes: c.failing_nodes, changed_at: c.changed_at,
      ...(late ? { late: true } : {}),
    },
  };
}

/** The events of one monitor's pass (see webhookStateEvents). */
function passEvents(pass: StatePass): OutboundEvent[] {
  const out: OutboundEvent[] = [];
  for (const c of pass.changes) {
    if (!c.late && worthSending(c.from_state, c.to_state)) out.push(changeEvent(pass, c, c.from_state, false));
  }
  if (!pass.changes.some((c) => c.late) || pass.state === pass.previous_state) return out;
  const last = pass.changes.at(-1)!;
  if (last.late && last.to_state === pass.state && worthSending(pass.previous_state, pass.state)) {
    out.push(changeEvent(pass, last, pass.previous_state, true));
  }
  return out;
}

/**
 * Webhook events `monitor.down`, `monitor.degraded`, `monitor.no_data` and `monitor.up` from
 * verdict state changes (shared-protocol events.ts; docs/api/webhooks.md), queued in the verdict
 * job's transaction:
 * - each timely change into down, degraded or no_data, and each back to up from one of them, is one event;
 * - changes learnt late (nodes buffered the results while the control plane was unreachable) are
 *   not replayed one by one: when such a catch-up moved the monitor's current state, one event
 *   for the net change (previous state → state now) is sent, marked `late`; when the state ends
 *   where it was, nothing is sent.
 */
export function webhookStateEvents(events: EventPublisher): StatePassListener {
  // One publish for the whole pass: its owners and endpoints are read together (webhooks/publisher.ts).
  return (passes, tx) => events.publishMany(passes.flatMap(passEvents), tx);
}
