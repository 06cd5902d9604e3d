import type { ALERT_NOISE_KINDS, ALERT_NOISE_MATCHES } from '@vantage/shared-protocol';
import type { ALERT_EVENT_STATUSES, ALERT_GROUP_BY, MAINTENANCE_RECURRENCES, PASSKEY_NAME_MAX_CHARS, SUBSCRIBABLE_EVENTS } from '@vantage/shared-protocol';

/*
 * The API's lists the console's forms offer. shared-protocol's main entry also holds server code
 * (node:crypto, node:net), so the values are written here and checked against its types: each
 * `satisfies` line fails the build when a list drifts from the API's.
 */

/** Exactly the members of `All`, or a type error. */
type Same<Mine, All> = [Exclude<All, Mine>, Exclude<Mine, All>] extends [never, never] ? true : false;

/** Alert event statuses (docs/api/alerting.md "Alert events"). */
export const EVENT_STATUSES = ['firing', 'acknowledged', 'resolved'] as const;
true satisfies Same<(typeof EVENT_STATUSES)[number], (typeof ALERT_EVENT_STATUSES)[number]>;

/** What an alert group matches monitors by (docs/api/alerting.md "Alert groups"). */
export const GROUP_BY = ['monitor_prefix', 'tag', 'type'] as const;
true satisfies Same<(typeof GROUP_BY)[number], (typeof ALERT_GROUP_BY)[number]>;

/** Maintenance window recurrences (docs/api/alerting.md "Maintenance windows"). */
export const RECURRENCES = ['none', 'daily', 'weekly', 'monthly'] as const;
true satisfies Same<(typeof RECURRENCES)[number], (typeof MAINTENANCE_RECURRENCES)[number]>;

/** Event names a webhook endpoint subscribes to, `*` for all (docs/api/webhooks.md "Events"). */
export const WEBHOOK_EVENTS = [
  'monitor.down', 'monitor.up', 'monitor.degraded', 'monitor.no_data', 'monitor.paused', 'monitor.resumed',
  'alert.firing', 'alert.acknowledged', 'alert.resolved', 'node.online', 'node.offline', 'probe.completed',
  'heartbeat.missed', 'ssl.expiring', 'domain.expiring', '*',
] as const;
true satisfies Same<(typeof WEBHOOK_EVENTS)[number], (typeof SUBSCRIBABLE_EVENTS)[number]>;

/** The longest passkey name, in characters (docs/api/accounts.md "Passkeys"). */
export const PASSKEY_NAME_MAX = 64;
true satisfies (typeof PASSKEY_NAME_MAX extends typeof PASSKEY_NAME_MAX_CHARS ? true : false);

/** Noise rule kinds and a duplicate rule's match (docs/api/alerting.md "Noise rules"). */
export const NOISE_KINDS = ['flap', 'duplicate', 'min_duration'] as const;
true satisfies Same<(typeof NOISE_KINDS)[number], (typeof ALERT_NOISE_KINDS)[number]>;
export const NOISE_MATCHES = ['host', 'target'] as const;
true satisfies Same<(typeof NOISE_MATCHES)[number], (typeof ALERT_NOISE_MATCHES)[number]>;
