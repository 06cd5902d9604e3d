import { z } from 'zod';
import { idSchema } from './ids.js';
import { timeParamSchema } from './monitors/history.js';
import { textString } from './parse.js';

/*
 * Dashboard wire shapes (docs/api/dashboards.md). A dashboard is a grid of widgets; each widget
 * shows one data source (a monitor metric, alert events or incidents, the node directory) as one
 * of nine visualisations. Every widget type has its own `options` schema, checked on write, and
 * accepts only the data-source metrics it can draw (WIDGET_METRICS). Every request string is a
 * textString (NUL refused).
 */

/** Dashboard limits (ours, docs/api/dashboards.md "Limits"). */
export const DASHBOARD_LIMITS = {
  name_max_chars: 200,
  description_max_chars: 2000,
  widgets_max: 50,
  title_max_chars: 200,
  columns_min: 1,
  columns_max: 24,
  columns_default: 12,
  row_height_px_min: 20,
  row_height_px_max: 400,
  row_height_px_default: 80,
  y_max: 1000,
  h_max: 48,
  text_max_chars: 4000,
  /** Monitors one widget names explicitly (latency and checks-by-node need them; uptime defaults to all). */
  monitor_ids_max: 20,
  /** Rows of a table widget. */
  table_rows_max: 1000,
  /** Rows of a status strip or heatmap, bars of a bar chart. */
  rows_max: 100,
  /** Longest data range, days. */
  range_max_days: 400,
} as const;

/** The widget types (a Grafana-like panel set: each one an options schema and a renderer). */
export const WIDGET_TYPES = ['timeseries', 'stat', 'status_strip', 'donut', 'bar', 'table', 'heatmap', 'gauge', 'text'] as const;
export type WidgetType = (typeof WIDGET_TYPES)[number];

/** Metrics by data-source kind: what a widget can show. */
export const DATA_SOURCE_METRICS = {
  monitor: ['latency', 'uptime', 'checks_by_node'],
  event: ['alert_events', 'incidents'],
  node: ['directory', 'online_count'],
} as const;
export type DataSourceMetric = (typeof DATA_SOURCE_METRICS)[keyof typeof DATA_SOURCE_METRICS][number];

/** Which metrics each widget type can draw (docs/api/dashboards.md "Widget types"); `text` has no data source. */
export const WIDGET_METRICS: Record<WidgetType, readonly DataSourceMetric[]> = {
  timeseries: ['latency', 'uptime', 'checks_by_node'],
  stat: ['latency', 'uptime', 'alert_events', 'incidents', 'directory', 'online_count'],
  gauge: ['latency', 'uptime', 'online_count'],
  status_strip: ['uptime'],
  heatmap: ['latency', 'uptime'],
  donut: ['uptime', 'checks_by_node', 'alert_events', 'incidents', 'online_count'],
  bar: ['latency', 'uptime', 'checks_by_node', 'alert_events', 'incidents'],
  table: ['latency', 'uptime', 'checks_by_node', 'alert_events', 'incidents', 'directory'],
  text: [],
};

/** A response-time statistic of a latency widget, ms. */
export const LATENCY_STATS = ['p50', 'p95', 'p99', 'avg'] as const;

const monitorIds = z.array(idSchema('monitor')).min(1).max(DASHBOARD_LIMITS.monitor_ids_max);

/**
 * A widget's data source. `monitor`: `latency` and `checks_by_node` of the named `monitor_ids`
 * (required), `uptime` of the named monitors or, omitted, of every monitor of the dashboard's
 * owner. `event`: the owner's `alert_events` or `incidents`, optionally of `monitor_ids`
 * (alert events only). `node`: the node `directory` and the `online_count`, of every node
 * (`mine: false`, default) or only the owner's own (`mine: true`).
 * @example { "kind": "monitor", "metric": "latency", "monitor_ids": ["m_01jd3k6w9z4q8r2t7v5x1y3b6c"] }
 */
export const dataSourceSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('monitor'), metric: z.enum(DATA_SOURCE_METRICS.monitor), monitor_ids: monitorIds.optional() }),
  z.strictObject({ kind: z.literal('event'), metric: z.enum(DATA_SOURCE_METRICS.event), monitor_ids: monitorIds.optional() }),
  z.strictObject({ kind: z.literal('node'), metric: z.enum(DATA_SOURCE_METRICS.node), mine: z.boolean().optional() }),
]);
export type DataSource = z.infer<typeof dataSourceSchema>;

const stat = z.enum(LATENCY_STATS).optional().describe('latency statistic (default p95)');
const limit = (max: number, dflt: number) => z.number().int().min(1).max(max).optional().describe(`rows shown, 1-${max} (default ${dflt})`);

/**
 * The `options` of each widget type (strict: an unknown option is refused). Defaults are applied
 * when the data is answered, so a stored widget keeps exactly what was sent.
 */
export const WIDGET_OPTIONS_SCHEMAS = {
  timeseries: z.strictObject({ stat, bucket_s: z.number().int().min(60).max(604_800).optional().describe('bucket width, s (default: at most 100 buckets)') }),
  stat: z.strictObject({ stat, decimals: z.number().int().min(0).max(4).optional(), unit_label: textString().max(20).optional() }),
  gauge: z.strictObject({
    stat, min: z.number().finite().optional(), max: z.number().finite().optional(),
    thresholds: z.array(z.number().finite()).max(5).optional().describe('ascending boundaries of the colour bands'),
  }).refine((o) => o.min === undefined || o.max === undefined || o.min < o.max, { message: 'min must be below max', path: ['min'] })
    .refine((o) => !o.thresholds || o.thresholds.every((v, i, a) => i === 0 || a[i - 1]! < v), { message: 'must be strictly ascending', path: ['thresholds'] }),
  status_strip: z.strictObject({ limit: limit(DASHBOARD_LIMITS.rows_max, 20) }),
  heatmap: z.strictObject({ stat, limit: limit(DASHBOARD_LIMITS.rows_max, 20) }),
  donut: z.strictObject({ show_legend: z.boolean().optional() }),
  bar: z.strictObject({ stat, limit: limit(DASHBOARD_LIMITS.rows_max, 10), order: z.enum(['asc', 'desc']).optional().describe('by value (default: worst first)') }),
  table: z.strictObject({ stat, limit: limit(DASHBOARD_LIMITS.table_rows_max, 50) }),
  text: z.strictObject({ markdown: textString().max(DASHBOARD_LIMITS.text_max_chars) }),
} as const satisfies Record<WidgetType, z.ZodType>;

/** A widget's place on the grid, in grid cells: column `x` from 0, row `y` from 0, `w` columns wide, `h` rows high. */
export const widgetPositionSchema = z.strictObject({
  x: z.number().int().min(0).max(DASHBOARD_LIMITS.columns_max - 1),
  y: z.number().int().min(0).max(DASHBOARD_LIMITS.y_max),
  w: z.number().int().min(1).max(DASHBOARD_LIMITS.columns_max),
  h: z.number().int().min(1).max(DASHBOARD_LIMITS.h_max),
});

/**
 * A widget as written (PUT /v1/dashboards/{id}/widgets): `id` kept when given (a `wg_` id), made
 * when omitted. `data_source` is required except for `text`, which has none. `options` is checked
 * against the type's schema (WIDGET_OPTIONS_SCHEMAS) and the metric against WIDGET_METRICS.
 */
export const widgetInputSchema = z.strictObject({
  id: idSchema('widget').optional(),
  type: z.enum(WIDGET_TYPES),
  title: textString().trim().max(DASHBOARD_LIMITS.title_max_chars).default(''),
  position: widgetPositionSchema,
  data_source: dataSourceSchema.nullable().optional(),
  options: z.record(z.string(), z.unknown()).default({}),
}).superRefine((w, ctx) => {
  const parsed = WIDGET_OPTIONS_SCHEMAS[w.type].safeParse(w.options);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: ['options', ...issue.path.map(String)] });
  }
  if (w.type === 'text') {
    if (w.data_source) ctx.addIssue({ code: 'custom', message: 'a text widget has no data source', path: ['data_source'] });
    return;
  }
  if (!w.data_source) {
    ctx.addIssue({ code: 'custom', message: `a ${w.type} widget needs a data source`, path: ['data_source'] });
    return;
  }
  const metric = w.data_source.metric;
  if (!WIDGET_METRICS[w.type].includes(metric)) {
    ctx.addIssue({ code: 'custom', message: `a ${w.type} widget cannot show ${metric} (it shows ${WIDGET_METRICS[w.type].join(', ')})`, path: ['data_source', 'metric'] });
  }
  if ((metric === 'latency' || metric === 'checks_by_node') && !('monitor_ids' in w.data_source && w.data_source.monitor_ids)) {
    ctx.addIssue({ code: 'custom', message: `${metric} needs monitor_ids (1-${DASHBOARD_LIMITS.monitor_ids_max})`, path: ['data_source', 'monitor_ids'] });
  }
  if (w.data_source.kind === 'event' && w.data_source.metric === 'incidents' && w.data_source.monitor_ids) {
    ctx.addIssue({ code: 'custom', message: 'incidents are not filtered by monitor', path: ['data_source', 'monitor_ids'] });
  }
});
export type WidgetInput = z.infer<typeof widgetInputSchema>;

/** A stored widget as answered (owner view: everything; public view: `data_source` without its ids). */
export const widgetSchema = z.object({
  id: z.string(),
  type: z.enum(WIDGET_TYPES),
  title: z.string(),
  position: widgetPositionSchema,
  data_source: z.record(z.string(), z.unknown()).nullable(),
  options: z.record(z.string(), z.unknown()),
});
export type Widget = z.infer<typeof widgetSchema>;

/** A dashboard's grid: `columns` (1-24, default 12) and the height of one row, px (20-400, default 80). */
export const dashboardLayoutSchema = z.strictObject({
  columns: z.number().int().min(DASHBOARD_LIMITS.columns_min).max(DASHBOARD_LIMITS.columns_max).default(DASHBOARD_LIMITS.columns_default),
  row_height_px: z.number().int().min(DASHBOARD_LIMITS.row_height_px_min).max(DASHBOARD_LIMITS.row_height_px_max).default(DASHBOARD_LIMITS.row_height_px_default),
});
export type DashboardLayout = z.infer<typeof dashboardLayoutSchema>;

/** Templates a dashboard can start from, each filled with the owner's own monitors and nodes. */
export const DASHBOARD_TEMPLATES = ['monitor_overview', 'node_fleet', 'alerting'] as const;
export type DashboardTemplate = (typeof DASHBOARD_TEMPLATES)[number];

/** POST /v1/dashboards: blank, or from `template_key`; `team_id` makes it a team's. */
export const dashboardCreateSchema = z.strictObject({
  name: textString().trim().min(1).max(DASHBOARD_LIMITS.name_max_chars),
  description: textString().trim().max(DASHBOARD_LIMITS.description_max_chars).default(''),
  template_key: z.enum(DASHBOARD_TEMPLATES).optional(),
  layout: dashboardLayoutSchema.optional(),
  is_public: z.boolean().default(false),
  team_id: z.string().max(64).nullable().optional(),
});

/** PATCH /v1/dashboards/{id}: any of these; `expected_version`, when sent, must be the current version. */
export const dashboardPatchSchema = z.strictObject({
  name: textString().trim().min(1).max(DASHBOARD_LIMITS.name_max_chars).optional(),
  description: textString().trim().max(DASHBOARD_LIMITS.description_max_chars).optional(),
  layout: dashboardLayoutSchema.optional(),
  is_public: z.boolean().optional(),
  expected_version: z.number().int().min(1).optional(),
});

/** PUT /v1/dashboards/{id}/widgets: the whole widget set; `expected_version` as for PATCH. */
export const dashboardWidgetsPutSchema = z.strictObject({
  expected_version: z.number().int().min(1).optional(),
  widgets: z.array(widgetInputSchema).max(DASHBOARD_LIMITS.widgets_max),
});

/** A dashboard (docs/api/dashboards.md). `widgets` on single reads only; `share_token`/`share_url` in the owner's view only. */
export const dashboardSchema = z.object({
  id: z.string(),
  team_id: z.string().nullable(),
  name: z.string(),
  description: z.string(),
  is_public: z.boolean(),
  layout: dashboardLayoutSchema,
  template_key: z.enum(DASHBOARD_TEMPLATES).optional(),
  version: z.number().int(),
  widget_count: z.number().int(),
  widgets: z.array(widgetSchema).optional(),
  share_token: z.string(),
  share_url: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Dashboard = z.infer<typeof dashboardSchema>;

/** The public view of a shared dashboard: no owner, id, token or monitor ids. */
export const publicDashboardSchema = z.object({
  name: z.string(),
  description: z.string(),
  layout: dashboardLayoutSchema,
  version: z.number().int(),
  widget_count: z.number().int(),
  widgets: z.array(widgetSchema),
  updated_at: z.string(),
});
export type PublicDashboard = z.infer<typeof publicDashboardSchema>;

/** GET /v1/dashboards/{id}/data query: the range [from, to) (default the last 24 hours). */
export const dashboardDataQuerySchema = z.object({
  from: timeParamSchema.optional(),
  to: timeParamSchema.optional(),
});

/**
 * One widget's data: `data` shaped by the widget type (docs/api/dashboards.md "Widget data"), or
 * `error` ({code, message}) when that widget alone could not be answered.
 */
export const widgetDataSchema = z.object({
  widget_id: z.string(),
  type: z.enum(WIDGET_TYPES),
  data: z.record(z.string(), z.unknown()).nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
});
export type WidgetData = z.infer<typeof widgetDataSchema>;

/** GET /v1/dashboards/{id}/data: every widget's data for one range, in widget order. */
export const dashboardDataSchema = z.object({
  from: z.string(),
  to: z.string(),
  version: z.number().int(),
  widgets: z.array(widgetDataSchema),
});
export type DashboardData = z.infer<typeof dashboardDataSchema>;
