import { z } from 'zod';
import { idSchema } from './ids.js';
import { failingNodeSchema } from './monitors/failing-node.js';
import { PROBE_TYPES } from './probe/params.js';

/*
 * The catalog of events Vantage sends to webhook endpoints (docs/api/webhooks.md "Events"). Each
 * event has a name (`monitor.down`) and a `data` schema; every delivery body is the envelope
 * {@link eventEnvelopeSchema} `{ id, type, timestamp, data }`, the payload structure the Standard
 * Webhooks specification recommends, with our event id added (also sent as `webhook-id`).
 */

const time = z.iso.datetime();

/** The monitor an event is about: enough to name it in a notification without another call. */
export const eventMonitorSchema = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  target: z.string(),
});

/**
 * A check that failed a monitor's round, with its error (`monitor.down`, `monitor.degraded`): the
 * state-change shape (monitors/failing-node.ts), so `node_id` is null for monitors the
 * control plane checks itself (`heartbeat`, `domain_expiry`), which have no node.
 */
export const eventFailingNodeSchema = failingNodeSchema;

/**
 * `monitor.down`, `monitor.up`, `monitor.degraded`, `monitor.no_data`: a monitor's state changed
 * (verdict of a round; no_data: no node reported two rounds in a row).
 */
export const monitorStateEventSchema = z.object({
  monitor: eventMonitorSchema,
  status: z.enum(['up', 'degraded', 'down', 'no_data']),
  previous_status: z.string().nullable(),
  /** Why, in words ("3 of 5 nodes failed: connection refused"); null when up. */
  reason: z.string().nullable(),
  failing_nodes: z.array(eventFailingNodeSchema),
  changed_at: time,
  /**
   * True when the change was learnt late: it comes from results the nodes buffered while the
   * control plane was unreachable, so it happened at `changed_at`, a while ago. Only the net
   * change of such a catch-up is sent (one event), never each stale step.
   */
  late: z.boolean().optional(),
});

/** `monitor.paused`, `monitor.resumed` (monitor state transitions). */
export const monitorPauseEventSchema = z.object({
  monitor: eventMonitorSchema,
  status: z.enum(['paused', 'active']),
  changed_at: time,
});

/** `alert.firing`, `alert.acknowledged`, `alert.resolved`: an AlertEvent changed status. */
export const alertEventSchema = z.object({
  alert_event: z.object({
    id: z.string(),
    monitor_id: z.string(),
    policy_id: z.string(),
    status: z.enum(['firing', 'acknowledged', 'resolved']),
    started_at: time,
    acknowledged_at: time.nullable(),
    acknowledged_by: z.string().nullable(),
    resolved_at: time.nullable(),
    metadata: z.record(z.string(), z.unknown()).nullable(),
  }),
});

/** `node.online`, `node.offline`: one of the account's probe nodes connected or went away. */
export const nodeStatusEventSchema = z.object({
  node: z.object({
    id: idSchema('node'),
    name: z.string(),
    country: z.string().nullable(),
    region: z.string().nullable(),
    city: z.string().nullable(),
    asn: z.number().int().nullable(),
    provider: z.string().nullable(),
  }),
  status: z.enum(['online', 'offline']),
  changed_at: time,
});

/**
 * `probe.completed`: every node of a probe the account requested has a result (docs/api/probes.md
 * group status: `completed` when at least one node succeeded, else `failed`). The full result is
 * at `GET /v1/probe/tasks/{task_id}`.
 */
export const probeCompletedEventSchema = z.object({
  task_id: idSchema('probe_task'),
  task_ids: z.array(idSchema('probe_task')),
  probe_type: z.enum(PROBE_TYPES),
  target: z.string(),
  status: z.enum(['completed', 'failed']),
  success_count: z.number().int().min(0),
  fail_count: z.number().int().min(0),
  created_at: time,
  completed_at: time,
});

/** `heartbeat.missed`: a heartbeat monitor got no check-in by its deadline. */
export const heartbeatMissedEventSchema = z.object({
  monitor: eventMonitorSchema,
  last_ping_at: time.nullable(),
  expected_at: time,
});

/** `ssl.expiring`: a certificate a monitor watches expires within the monitor's threshold. */
export const sslExpiringEventSchema = z.object({
  monitor: eventMonitorSchema,
  host: z.string(),
  subject: z.string().nullable(),
  issuer: z.string().nullable(),
  expires_at: time,
  days_left: z.number().int(),
});

/**
 * `certificate.expiring`: a certificate Vantage issued (docs/api/certificates.md) is within the
 * deployment's notice period of its `not_after`; sent once per certificate.
 */
export const certificateExpiringEventSchema = z.object({
  certificate: z.object({
    id: z.number().int(),
    order_id: z.number().int(),
    sans: z.array(z.string()),
    issuer: z.string(),
    serial_hex: z.string(),
  }),
  expires_at: time,
  days_left: z.number().int(),
});

/** `domain.expiring`: a domain a monitor watches expires within the monitor's threshold. */
export const domainExpiringEventSchema = z.object({
  monitor: eventMonitorSchema,
  domain: z.string(),
  registrar: z.string().nullable(),
  expires_at: time,
  days_left: z.number().int(),
});

/** `webhook.ping`: sent by `POST /v1/webhook-endpoints/{id}/test` whatever the endpoint subscribes to. */
export const webhookPingEventSchema = z.object({
  endpoint_id: idSchema('webhook_endpoint'),
  message: z.string(),
});

/**
 * Every event name with the schema of its `data` and a one-line description (used for the
 * OpenAPI document's `webhooks` section and docs/api/webhooks.md). Producers validate `data`
 * against it before the event is queued.
 */
export const EVENT_CATALOG = {
  'monitor.down': { data: monitorStateEventSchema, description: 'A monitor went down: at least its quorum of nodes failed a round.' },
  'monitor.up': { data: monitorStateEventSchema, description: 'A monitor is up again: no node failed a round.' },
  'monitor.degraded': { data: monitorStateEventSchema, description: 'Some nodes failed a round, fewer than the quorum.' },
  'monitor.no_data': { data: monitorStateEventSchema, description: 'No node reported a monitor\'s last two rounds by their deadline (its nodes are gone or offline).' },
  'monitor.paused': { data: monitorPauseEventSchema, description: 'A monitor was paused.' },
  'monitor.resumed': { data: monitorPauseEventSchema, description: 'A paused monitor was resumed.' },
  'alert.firing': { data: alertEventSchema, description: 'An alert policy fired.' },
  'alert.acknowledged': { data: alertEventSchema, description: 'A firing alert was acknowledged.' },
  'alert.resolved': { data: alertEventSchema, description: 'An alert was resolved.' },
  'node.online': { data: nodeStatusEventSchema, description: 'One of your probe nodes connected.' },
  'node.offline': { data: nodeStatusEventSchema, description: 'One of your probe nodes disconnected or stopped answering heartbeats.' },
  'probe.completed': { data: probeCompletedEventSchema, description: 'Every node of a probe you requested has a result.' },
  'heartbeat.missed': { data: heartbeatMissedEventSchema, description: 'A heartbeat monitor got no check-in by its deadline.' },
  'ssl.expiring': { data: sslExpiringEventSchema, description: 'A watched TLS certificate is about to expire.' },
  'domain.expiring': { data: domainExpiringEventSchema, description: 'A watched domain registration is about to expire.' },
  'certificate.expiring': { data: certificateExpiringEventSchema, description: 'A certificate issued through Vantage is about to expire.' },
  'webhook.ping': { data: webhookPingEventSchema, description: 'Test event sent on request (POST /v1/webhook-endpoints/{id}/test); not subscribable.' },
} as const;

/** Every event name. */
export type EventType = keyof typeof EVENT_CATALOG;
export const EVENT_TYPES = Object.keys(EVENT_CATALOG) as EventType[];
/** The `data` of event `T`. */
export type EventData<T extends EventType> = z.infer<(typeof EVENT_CATALOG)[T]['data']>;

/** Subscribing to this name receives every event (except `webhook.ping`, which only /test sends). */
export const EVENT_WILDCARD = '*';
/** Names an endpoint may list in `events[]`: every catalog event but `webhook.ping`, and `*`. */
export const SUBSCRIBABLE_EVENTS = [...EVENT_TYPES.filter((t) => t !== 'webhook.ping'), EVENT_WILDCARD] as const;
export const subscribableEventSchema = z.enum(SUBSCRIBABLE_EVENTS as unknown as [string, ...string[]]);

/**
 * The body of every webhook delivery (Standard Webhooks payload structure plus `id`):
 * `id` is the event id (`evt_…`, also the `webhook-id` header, the same on every retry),
 * `type` the event name, `timestamp` when the event happened, `data` its payload.
 * @example { "id": "evt_01jd…", "type": "node.offline", "timestamp": "2026-11-22T10:00:00.000Z", "data": { "node": { … }, "status": "offline", "changed_at": "…" } }
 */
export function eventEnvelopeSchema<T extends EventType>(type: T) {
  return z.object({
    id: idSchema('event'),
    type: z.literal(type),
    timestamp: time,
    data: EVENT_CATALOG[type].data as (typeof EVENT_CATALOG)[T]['data'],
  });
}
export type EventEnvelope<T extends EventType = EventType> = { id: string; type: T; timestamp: string; data: EventData<T> };

/**
 * Validate `data` for event `type`.
 * @returns the parsed data, or a readable error (a producer drops and logs an event that fails)
 */
export function parseEventData<T extends EventType>(type: T, data: unknown): { ok: true; value: EventData<T> } | { ok: false; error: string } {
  const entry = EVENT_CATALOG[type] as (typeof EVENT_CATALOG)[EventType] | undefined;
  if (!entry) return { ok: false, error: `unknown event type ${String(type)}` };
  const parsed = entry.data.safeParse(data);
  if (parsed.success) return { ok: true, value: parsed.data as EventData<T> };
  return { ok: false, error: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
}
