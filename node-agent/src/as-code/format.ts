import { z } from 'zod';
import { envRefSchema } from './env-ref.js';
import { KIND_HANDLERS } from './kinds/index.js';
import { alertSilenceKind } from './kinds/alert-silences.js';
import { dashboardKind } from './kinds/dashboards.js';
import { maintenanceWindowKind } from './kinds/maintenance-windows.js';
import { statusPageKind } from './kinds/status-pages.js';
import { webhookEndpointKind } from './kinds/webhook-endpoints.js';
import {
  AS_CODE_KINDS, type AsCodeKind, ALERT_CHANNEL_TYPES, alertPolicyPatchSchema, escalationLevelInputSchema, exportMonitorSchema, monitorGroupCreateSchema,
  monitorNameSchema,
} from '@vantage/shared-protocol';

/*
 * The monitoring-as-code file format, version 1 (docs/api/as-code.md). Every resource sits in a
 * map under its kind, keyed by its stable name (the resource's `name` in the API; a status page's
 * slug; a silence's reason, a maintenance window's title, a webhook endpoint's description);
 * references between resources use those names, never ids. Each resource's fields are the
 * request schema of its kind in shared-protocol (the kinds of kinds/ check their requests with it
 * when resolved), so the file checks what the API checks for shape.
 */

export { AS_CODE_KINDS, type AsCodeKind };
export { envRefSchema, type EnvRef } from './env-ref.js';

/** The document key of each kind (`monitor_groups:` holds monitor_group resources). */
export const KIND_SECTION: Record<AsCodeKind, string> = {
  monitor_group: 'monitor_groups', alert_channel: 'alert_channels', monitor: 'monitors', alert_policy: 'alert_policies',
  ...Object.fromEntries(Object.values(KIND_HANDLERS).map((h) => [h.kind, h.section])),
} as Record<AsCodeKind, string>;

/** `monitor_groups.<name>`: the group's `sort_order` (default 0). */
export const groupSpecSchema = monitorGroupCreateSchema.omit({ name: true, team_id: true });

/**
 * `monitors.<name>`: an ExportMonitor without its name (the key is the name): `type`, `target`,
 * `interval_s`, `node_count`, `tags[]`, `group` (a group's name, of this file set or existing),
 * `config` (checked for the type; defaults filled).
 */
export const monitorSpecSchema = exportMonitorSchema.omit({ name: true });

/**
 * `alert_channels.<name>`: `type` and `config`. The config's secret fields (webhook `secret`,
 * Slack's `webhook_url`...) must be `{ env: NAME }` references; other fields may be references too.
 */
export const channelSpecSchema = z.strictObject({
  type: z.enum(ALERT_CHANNEL_TYPES),
  config: z.record(z.string(), z.union([envRefSchema, z.unknown()])).default({}),
});

const nameList = z.array(monitorNameSchema).refine((a) => new Set(a).size === a.length, 'must not repeat a name');

/** An escalation level naming its channels (`channels[]`) instead of giving their ids. */
export const escalationSpecSchema = escalationLevelInputSchema.omit({ channel_ids: true, schedule_ids: true }).extend({ channels: nameList.min(1) });

/**
 * `alert_policies.<name>`: the fields of an alert policy request, with `monitor` (a monitor's
 * name) for `monitor_id`, `channels[]` (channel names) for `channel_ids` and escalation levels
 * naming their channels. Omitted fields take the API's defaults.
 */
export const policySpecSchema = alertPolicyPatchSchema
  .omit({ monitor_id: true, channel_ids: true, escalation_levels: true, team_id: true, incident_status_page_ids: true, name: true })
  .extend({ monitor: monitorNameSchema, channels: nameList.default([]), escalation_levels: z.array(escalationSpecSchema).default([]) });

const section = <T extends z.ZodType>(spec: T) => z.record(monitorNameSchema, spec).default({});

/** A whole file (YAML or JSON). `version` is 1. Unknown top-level keys are refused. */
export const asCodeFileSchema = z.strictObject({
  version: z.literal(1),
  monitor_groups: section(groupSpecSchema),
  alert_channels: section(channelSpecSchema),
  monitors: section(monitorSpecSchema),
  alert_policies: section(policySpecSchema),
  webhook_endpoints: section(webhookEndpointKind.spec),
  alert_silences: section(alertSilenceKind.spec),
  maintenance_windows: section(maintenanceWindowKind.spec),
  status_pages: section(statusPageKind.spec),
  dashboards: section(dashboardKind.spec),
});
export type AsCodeFile = z.infer<typeof asCodeFileSchema>;

export type GroupSpec = z.output<typeof groupSpecSchema>;
export type MonitorSpec = z.output<typeof monitorSpecSchema>;
export type ChannelSpec = z.output<typeof channelSpecSchema>;
export type PolicySpec = z.output<typeof policySpecSchema>;

/** The spec schema of each kind (what one resource of a file is checked with). */
export const SPEC_SCHEMAS: Record<AsCodeKind, z.ZodType> = {
  monitor_group: groupSpecSchema, alert_channel: channelSpecSchema, monitor: monitorSpecSchema, alert_policy: policySpecSchema,
  webhook_endpoint: webhookEndpointKind.spec, alert_silence: alertSilenceKind.spec, maintenance_window: maintenanceWindowKind.spec,
  status_page: statusPageKind.spec, dashboard: dashboardKind.spec,
};
