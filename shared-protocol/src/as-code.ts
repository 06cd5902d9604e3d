import { z } from 'zod';

/*
 * Monitoring as code (docs/api/as-code.md): the marks that record which resources were applied
 * from files, so `vantage apply --prune` deletes only those and the console shows them read-only.
 */

/**
 * The kinds of resource a file may declare, in the order they are created (a kind only refers to
 * kinds before it: monitors to groups, policies to monitors and channels, silences, maintenance
 * windows, status pages and dashboards to monitors and groups); deletions go in reverse.
 */
export const AS_CODE_KINDS = [
  'monitor_group', 'alert_channel', 'webhook_endpoint', 'monitor', 'alert_policy', 'alert_silence', 'maintenance_window', 'status_page', 'dashboard',
] as const;
export const asCodeKindSchema = z.enum(AS_CODE_KINDS);
export type AsCodeKind = z.infer<typeof asCodeKindSchema>;

/** A file path as recorded on a mark (as given to `vantage apply`, or matched by VANTAGE_PROVISION_FILES). */
export const asCodeSourceFileSchema = z.string().trim().min(1).max(1024);

/**
 * `PUT /v1/as-code/marks/{kind}/{resource_id}`: mark one of your resources as applied from
 * `source_file` under the stable name `key` (the resource's name in the file).
 * @example { "key": "Checkout API", "source_file": "monitoring/shop.yaml" }
 */
export const asCodeMarkPutSchema = z.strictObject({
  key: z.string().trim().min(1).max(200),
  source_file: asCodeSourceFileSchema,
});
export type AsCodeMarkPut = z.infer<typeof asCodeMarkPutSchema>;

/** A mark as returned. */
export const asCodeMarkSchema = z.object({
  kind: asCodeKindSchema,
  resource_id: z.string(),
  key: z.string(),
  source_file: z.string(),
  updated_at: z.iso.datetime(),
});
export type AsCodeMark = z.infer<typeof asCodeMarkSchema>;

/** `GET /v1/as-code/marks`: `{items[]}`, by kind then key; `?kind=` filters. */
export const asCodeMarkListSchema = z.object({ items: z.array(asCodeMarkSchema) });
export const asCodeMarkQuerySchema = z.object({ kind: asCodeKindSchema.optional() });
