import type { AlertEventRecord, AlertNotification } from '@vantage/shared-protocol';
import type { OutboundEvent } from '../contracts.js';
import type { AlertEventRow, EngineMonitor, EnginePolicy } from './alert-events.db.js';
import { renderNotificationText } from './template-model.js';

/*
 * The shapes an alert event takes outside the engine: the API record, the webhook event and the
 * notification a channel sender formats (docs/api/alerting.md "Alert events").
 */

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

/** An event row as the API returns it. */
export function toAlertEvent(row: AlertEventRow): AlertEventRecord {
  return {
    id: row.id, user_id: row.user_id, team_id: row.team_id ?? null, monitor_id: row.monitor_id, policy_id: row.policy_id, type: row.type, status: row.status,
    started_at: iso(row.started_at)!, fired_at: iso(row.fired_at)!, acknowledged_at: iso(row.acknowledged_at), acknowledged_by: row.acknowledged_by,
    resolved_at: iso(row.resolved_at), resolved_by: row.resolved_by, suppressed: row.suppressed, next_level: row.next_level,
    next_notification_at: iso(row.next_due_at), metadata: row.metadata, created_at: iso(row.created_at)!,
  };
}

/** The `alert.firing` / `alert.acknowledged` / `alert.resolved` webhook event of an event row. */
export function alertWebhookEvent(row: AlertEventRow, occurred_at: Date): OutboundEvent {
  return {
    type: `alert.${row.status}`, user_id: row.user_id, occurred_at,
    data: {
      alert_event: {
        id: row.id, monitor_id: row.monitor_id, policy_id: row.policy_id, status: row.status, started_at: iso(row.started_at)!,
        acknowledged_at: iso(row.acknowledged_at), acknowledged_by: row.acknowledged_by, resolved_at: iso(row.resolved_at), metadata: row.metadata,
      },
    },
  } as OutboundEvent;
}

const ACTIONS = { firing: 'trigger', acknowledged: 'acknowledge', resolved: 'resolve' } as const;

/**
 * The notification of `kind` for one event step, title and body rendered from the policy's
 * templates (`template_fault` says why one was replaced by the default, when it was).
 * `dedup_key` is the event id, so PagerDuty ties trigger, acknowledge and resolve to
 * one incident; severity: critical for down, warning for degraded and no_data.
 */
export function buildNotification(
  event: AlertEventRow, policy: Pick<EnginePolicy, 'id' | 'name' | 'title_template' | 'body_template'>, monitor: EngineMonitor,
  kind: 'firing' | 'acknowledged' | 'resolved', level: number, at: Date,
): AlertNotification {
  const meta = (event.metadata ?? {}) as { reason?: string | null; failing_nodes?: Array<{ node_id?: string; country?: string | null; error?: string | null }> };
  const state = kind === 'resolved' ? 'up' : event.type;
  const data = {
    Monitor: { ID: monitor.id, Name: monitor.name, Type: monitor.type, Target: monitor.target ?? '' },
    Event: { ID: event.id, Status: kind, Action: ACTIONS[kind], StartedAt: iso(event.started_at), ResolvedAt: iso(event.resolved_at) ?? '' },
    State: kind === 'acknowledged' ? `${event.type}, acknowledged` : state,
    PreviousState: kind === 'resolved' ? event.type : '',
    Reason: kind === 'firing' ? meta.reason ?? '' : '',
    Policy: { ID: policy.id, Name: policy.name },
    Level: level,
    Nodes: kind === 'firing' ? (meta.failing_nodes ?? []).map((n) => ({ Name: n.node_id ?? '', Country: n.country ?? '', Error: n.error ?? '' })) : [],
    Time: at.toISOString(),
  };
  const { title, body, template_fault } = renderNotificationText(policy, data);
  return {
    kind: 'alert', event_action: ACTIONS[kind], dedup_key: event.id, title, body, ...(template_fault ? { template_fault } : {}),
    severity: kind !== 'firing' ? 'info' : event.type === 'down' ? 'critical' : 'warning',
    occurred_at: at.toISOString(), monitor: { id: monitor.id, name: monitor.name, type: monitor.type, target: monitor.target ?? '' },
    event_id: event.id, policy_id: policy.id,
  };
}
