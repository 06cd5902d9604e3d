import type { ALERT_NOISE_KINDS, ALERT_NOISE_MATCHES } from '@vantage/shared-protocol';
import type { DASHBOARD_LIMITS, DASHBOARD_TEMPLATES, DATA_SOURCE_METRICS, INCIDENT_IMPACTS, INCIDENT_STATUSES, LATENCY_STATS, POSTMORTEM_STATUSES, STATUS_PAGE_THEMES, WIDGET_METRICS, WIDGET_TYPES } from '@vantage/shared-protocol';
import type { ALERT_EVENT_STATUSES, ALERT_GROUP_BY, MAINTENANCE_RECURRENCES, PASSKEY_NAME_MAX_CHARS, SUBSCRIBABLE_EVENTS } from '@vantage/shared-protocol';
import type { AGENT_OBS_LLM_STYLES, AGENT_OBS_TYPES, BILLING_PLANS, ENTITLEMENT_KINDS, MCP_TOKEN_TYPES, MCP_TOOL_CALL_STATUSES } from '@vantage/shared-protocol';
import type { VERDICT_PAYMENT_METHODS, VERDICT_PRICES_CNY, VERDICT_TEMPLATES } from '@vantage/shared-protocol';
import type { CERT_CHALLENGE_TYPES, CERT_REVOKE_REASONS, DNS_PROVIDERS } from '@vantage/shared-protocol';
import type { ONCALL_CONTACT_METHODS, ONCALL_LIMITS, ONCALL_NOTIFICATION_RULES_MAX, ONCALL_SHIFT_UNITS, TEAM_INVITE_ROLES, TEAM_ROLE_NAMES } from '@vantage/shared-protocol';

/*
 * The API's lists the console's forms offer. shared-protocol's main entry also holds server code
 * (node:crypto, node:net), so the values are written here and checked against its types: each
 * `satisfies` line fails the build when a list drifts from the API's.
 */

/** Exactly the members of `All`, or a type error. */
export type Same<Mine, All> = [Exclude<All, Mine>, Exclude<Mine, All>] extends [never, never] ? true : false;

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
  'heartbeat.missed', 'ssl.expiring', 'domain.expiring', 'certificate.expiring', '*',
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

/** Status page colour schemes (docs/api/status-pages.md "Status pages"). */
export const PAGE_THEMES = ['system', 'light', 'dark'] as const;
true satisfies Same<(typeof PAGE_THEMES)[number], (typeof STATUS_PAGE_THEMES)[number]>;

/** Incident statuses, in the order an incident moves through them, and impacts (docs/api/status-pages.md "Incidents"). */
export const INCIDENT_STATUS_LIST = ['investigating', 'identified', 'monitoring', 'resolved'] as const;
true satisfies Same<(typeof INCIDENT_STATUS_LIST)[number], (typeof INCIDENT_STATUSES)[number]>;
export const INCIDENT_IMPACT_LIST = ['none', 'minor', 'major', 'critical'] as const;
true satisfies Same<(typeof INCIDENT_IMPACT_LIST)[number], (typeof INCIDENT_IMPACTS)[number]>;
export const POSTMORTEM_STATUS_LIST = ['draft', 'published'] as const;
true satisfies Same<(typeof POSTMORTEM_STATUS_LIST)[number], (typeof POSTMORTEM_STATUSES)[number]>;

/** Dashboard templates, widget types, data-source metrics by kind and latency statistics (docs/api/dashboards.md). */
export const TEMPLATES = ['monitor_overview', 'node_fleet', 'alerting'] as const;
true satisfies Same<(typeof TEMPLATES)[number], (typeof DASHBOARD_TEMPLATES)[number]>;
export const WIDGET_TYPE_LIST = ['timeseries', 'stat', 'status_strip', 'donut', 'bar', 'table', 'heatmap', 'gauge', 'text'] as const;
true satisfies Same<(typeof WIDGET_TYPE_LIST)[number], (typeof WIDGET_TYPES)[number]>;
export const METRICS_BY_KIND = {
  monitor: ['latency', 'uptime', 'checks_by_node'],
  event: ['alert_events', 'incidents'],
  node: ['directory', 'online_count'],
} as const satisfies typeof DATA_SOURCE_METRICS;
true satisfies Same<keyof typeof METRICS_BY_KIND, keyof typeof DATA_SOURCE_METRICS>;
export type Metric = (typeof METRICS_BY_KIND)[keyof typeof METRICS_BY_KIND][number];
/** Which metrics each widget type draws (the API refuses the others). */
export const METRICS_OF_TYPE = {
  timeseries: ['latency', 'uptime', 'checks_by_node'],
  stat: ['latency', 'uptime', 'alert_events', 'incidents', 'directory', 'online_count'],
  gauge: ['latency', 'uptime', 'online_count'],
  status_strip: ['uptime'],
  heatmap: ['latency', 'uptime'],
  donut: ['uptime', 'checks_by_node', 'alert_events', 'incidents', 'online_count'],
  bar: ['latency', 'uptime', 'checks_by_node', 'alert_events', 'incidents'],
  table: ['latency', 'uptime', 'checks_by_node', 'alert_events', 'incidents', 'directory'],
  text: [],
} as const satisfies Record<(typeof WIDGET_TYPE_LIST)[number], readonly Metric[]>;
true satisfies Same<(typeof METRICS_OF_TYPE)[keyof typeof METRICS_OF_TYPE][number], (typeof WIDGET_METRICS)[keyof typeof WIDGET_METRICS][number]>;
export const STAT_LIST = ['p50', 'p95', 'p99', 'avg'] as const;
true satisfies Same<(typeof STAT_LIST)[number], (typeof LATENCY_STATS)[number]>;
/** A widget position's bounds in grid cells (docs/api/dashboards.md "Widgets"): the last row it may start on, its most rows. */
export const GRID_BOUNDS = { y_max: 1000, h_max: 48 } as const;
true satisfies Same<typeof GRID_BOUNDS.y_max, typeof DASHBOARD_LIMITS.y_max> & Same<typeof GRID_BOUNDS.h_max, typeof DASHBOARD_LIMITS.h_max>;

/** Agent-obs monitor kinds and an llm monitor's API styles (docs/api/agent-obs.md "Monitors"). */
export const AGENT_OBS_KINDS = ['llm', 'tool', 'rag', 'other'] as const;
true satisfies Same<(typeof AGENT_OBS_KINDS)[number], (typeof AGENT_OBS_TYPES)[number]>;
export const AGENT_OBS_API_STYLES = ['openai', 'anthropic'] as const;
true satisfies Same<(typeof AGENT_OBS_API_STYLES)[number], (typeof AGENT_OBS_LLM_STYLES)[number]>;

/** MCP token kinds and tool-call outcomes (docs/api/mcp.md). */
export const MCP_TOKEN_KINDS = ['personal', 'workspace', 'service'] as const;
true satisfies Same<(typeof MCP_TOKEN_KINDS)[number], (typeof MCP_TOKEN_TYPES)[number]>;
export const MCP_CALL_STATUSES = ['success', 'failure', 'timeout', 'rate_limited'] as const;
true satisfies Same<(typeof MCP_CALL_STATUSES)[number], (typeof MCP_TOOL_CALL_STATUSES)[number]>;

/** Plans one subscribes to (docs/api/billing.md "Subscribing"). */
export const PLANS_TO_BUY = ['pro', 'business'] as const;
true satisfies Same<(typeof PLANS_TO_BUY)[number], (typeof BILLING_PLANS)[number]>;

/** Entitlement kinds an administrator grants (docs/api/billing.md "Entitlements"). */
export const ENTITLEMENT_KIND_LIST = ['quota_override', 'api_pack', 'report_pack'] as const;
true satisfies Same<(typeof ENTITLEMENT_KIND_LIST)[number], (typeof ENTITLEMENT_KINDS)[number]>;

/** Verdict report templates and payment methods (docs/api/verdicts.md "Templates and prices"). */
export const VERDICT_TEMPLATE_LIST = ['uptime_sla', 'outage_window', 'dns_consistency'] as const;
true satisfies Same<(typeof VERDICT_TEMPLATE_LIST)[number], (typeof VERDICT_TEMPLATES)[number]>;
export const VERDICT_PAYMENTS = ['report_credit', 'charge'] as const;
/** Each template's price, CNY (docs/api/verdicts.md "Templates and prices"), shown in the order form. */
export const VERDICT_PRICES = { uptime_sla: 99, outage_window: 49, dns_consistency: 79 } as const;
true satisfies (typeof VERDICT_PRICES extends typeof VERDICT_PRICES_CNY ? (typeof VERDICT_PRICES_CNY extends typeof VERDICT_PRICES ? true : false) : false);
true satisfies Same<(typeof VERDICT_PAYMENTS)[number], (typeof VERDICT_PAYMENT_METHODS)[number]>;

/** How an order's names are proven, revocation reasons and DNS credential providers (docs/api/certificates.md). */
export const CHALLENGE_TYPES = ['dns-01', 'manual-dns'] as const;
true satisfies Same<(typeof CHALLENGE_TYPES)[number], (typeof CERT_CHALLENGE_TYPES)[number]>;
export const REVOKE_REASONS = ['unspecified', 'keyCompromise', 'affiliationChanged', 'superseded', 'cessationOfOperation'] as const;
true satisfies Same<(typeof REVOKE_REASONS)[number], (typeof CERT_REVOKE_REASONS)[number]>;
export const PROVIDERS = ['rfc2136', 'cloudflare', 'route53'] as const;
true satisfies Same<(typeof PROVIDERS)[number], (typeof DNS_PROVIDERS)[number]>;
/** Team roles, weakest first, and those an invitation offers (docs/api/teams.md "Roles", "Invitations"). */
export const ROLES = ['viewer', 'member', 'admin', 'owner'] as const;
true satisfies Same<(typeof ROLES)[number], (typeof TEAM_ROLE_NAMES)[number]>;
// The order too: a role has everything of the roles before it (components/team-roles.ts).
true satisfies (typeof ROLES extends typeof TEAM_ROLE_NAMES ? true : false);
export const INVITE_ROLES = ['viewer', 'member', 'admin'] as const;
true satisfies Same<(typeof INVITE_ROLES)[number], (typeof TEAM_INVITE_ROLES)[number]>;

/** On-call shift units, contact methods and limits (docs/api/teams.md "On-call schedules", "On-call contacts"). */
export const SHIFT_UNITS = ['hours', 'days', 'weeks'] as const;
true satisfies Same<(typeof SHIFT_UNITS)[number], (typeof ONCALL_SHIFT_UNITS)[number]>;
export const CONTACT_METHODS = ['email', 'sms', 'webhook'] as const;
true satisfies Same<(typeof CONTACT_METHODS)[number], (typeof ONCALL_CONTACT_METHODS)[number]>;
export const ONCALL_BOUNDS = { rotations_max: 10, participants_max: 50, shift_length_max: 366, contacts_max: 5 } as const;
true satisfies Same<typeof ONCALL_BOUNDS.rotations_max, typeof ONCALL_LIMITS.rotations_max> & Same<typeof ONCALL_BOUNDS.participants_max, typeof ONCALL_LIMITS.participants_max>;
true satisfies Same<typeof ONCALL_BOUNDS.shift_length_max, typeof ONCALL_LIMITS.shift_length_max> & Same<typeof ONCALL_BOUNDS.contacts_max, typeof ONCALL_NOTIFICATION_RULES_MAX>;
