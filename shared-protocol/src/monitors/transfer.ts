import { z } from 'zod';
import { textString } from '../parse.js';
import { monitorGroupCreateSchema } from './groups.js';
import { monitorNameSchema, monitorTagsSchema } from './requests.js';
import { MONITOR_LIMITS, monitorTypeSchema } from './types.js';

/*
 * Export and import of monitors ( "ExportMonitor"): a portable projection without
 * runtime fields (id, status, state, uptime, timestamps, heartbeat tokens), so an export imported
 * into another account reproduces the monitors and their groups.
 */

/**
 * ExportMonitor: `name`, `type`, `target` (absent for heartbeat), `interval_s`,
 * `node_count`, `tags[]`, `group` (the group's name; empty = ungrouped) and `config` (omitted
 * when empty). On import each is checked like a create request.
 * @example { "name": "Checkout API", "type": "https", "target": "https://shop.example.com/api/health", "interval_s": 60, "node_count": 3, "tags": ["prod"], "group": "Production", "config": { "expected_status": "200" } }
 */
export const exportMonitorSchema = z.strictObject({
  name: monitorNameSchema,
  type: monitorTypeSchema,
  target: textString().trim().max(MONITOR_LIMITS.target_max_chars).optional(),
  interval_s: z.number().int().optional(),
  node_count: z.number().int().min(0).max(MONITOR_LIMITS.node_count_max).optional(),
  tags: monitorTagsSchema.default([]),
  group: textString().trim().max(MONITOR_LIMITS.name_max_chars).default(''),
  config: z.record(z.string(), z.unknown()).optional(),
});
export type ExportMonitor = z.infer<typeof exportMonitorSchema>;

/** A group in an export: its name and sort order (so empty groups and the order survive). */
export const exportGroupSchema = monitorGroupCreateSchema;

/**
 * `GET /v1/monitors/export`: every monitor of the account as ExportMonitor, with its groups.
 * `version` is the format's version (1). POST the same object to /v1/monitors/import.
 */
export const monitorExportSchema = z.object({
  version: z.literal(1),
  exported_at: z.iso.datetime(),
  groups: z.array(exportGroupSchema),
  monitors: z.array(exportMonitorSchema),
});
export type MonitorExport = z.infer<typeof monitorExportSchema>;

/**
 * `POST /v1/monitors/import`: an export document (`version` and `exported_at` optional),
 * `monitors[]` (at most 500, each checked on its own so one bad item fails only itself),
 * `groups[]` (created when missing, matched by name), and `dry_run` (default false: report what
 * would happen, change nothing).
 * @example { "dry_run": true, "monitors": [{ "name": "Homepage", "type": "http", "target": "https://example.com", "group": "Web" }] }
 */
export const monitorImportSchema = z.strictObject({
  version: z.literal(1).optional(),
  exported_at: z.string().max(64).optional(),
  dry_run: z.boolean().default(false),
  groups: z.array(z.unknown()).max(MONITOR_LIMITS.import_items_max).default([]),
  monitors: z.array(z.unknown()).max(MONITOR_LIMITS.import_items_max),
});
export type MonitorImport = z.infer<typeof monitorImportSchema>;

/** What became of one imported monitor: `created`, `valid` (dry run: it would be created) or `failed` with its error. */
export const importItemResultSchema = z.object({
  index: z.number().int().min(0),
  name: z.string().nullable(),
  status: z.enum(['created', 'valid', 'failed']),
  monitor_id: z.string().nullable(),
  error: z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()).optional() }).nullable(),
  /** Heartbeat monitors created by the import: their new check-in token and URL, shown once. */
  heartbeat: z.object({ token: z.string(), url: z.string() }).optional(),
});
export type ImportItemResult = z.infer<typeof importItemResultSchema>;

/**
 * The import report: counts, the groups created (or that a dry run would create), and one
 * result per monitor in request order.
 */
export const monitorImportResultSchema = z.object({
  dry_run: z.boolean(),
  created: z.number().int().min(0),
  failed: z.number().int().min(0),
  groups_created: z.array(z.string()),
  items: z.array(importItemResultSchema),
});
export type MonitorImportResult = z.infer<typeof monitorImportResultSchema>;
