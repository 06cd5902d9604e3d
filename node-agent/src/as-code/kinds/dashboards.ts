import { z } from 'zod';
import {
  DASHBOARD_LIMITS, DATA_SOURCE_METRICS, dashboardCreateSchema, dashboardLayoutSchema, dashboardWidgetsPutSchema, monitorNameSchema, newId,
  widgetPositionSchema, WIDGET_TYPES, type Dashboard, type Widget,
} from '@vantage/shared-protocol';
import type { ApiClient } from '../client.js';
import { reportZod, type KindHandler, type Listed } from './kind.js';

/*
 * `dashboards.<name>` (docs/api/dashboards.md): the dashboard's fields and its whole widget set,
 * each widget's data source naming monitors (`monitors[]`) instead of giving `monitor_ids`.
 * Writes carry `expected_version`, so an edit made in the console meanwhile fails the apply
 * (409 CONFLICT) instead of being overwritten unseen.
 */

const monitorNames = z.array(monitorNameSchema).min(1).max(DASHBOARD_LIMITS.monitor_ids_max);

/** A widget's data source with monitor names: `{kind: monitor|event, metric, monitors?}` or `{kind: node, metric, mine?}`. */
const dataSourceSpecSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('monitor'), metric: z.enum(DATA_SOURCE_METRICS.monitor), monitors: monitorNames.optional() }),
  z.strictObject({ kind: z.literal('event'), metric: z.enum(DATA_SOURCE_METRICS.event), monitors: monitorNames.optional() }),
  z.strictObject({ kind: z.literal('node'), metric: z.enum(DATA_SOURCE_METRICS.node), mine: z.boolean().optional() }),
]);

/** A widget as written in a file: the widget request (docs/api/dashboards.md "Widgets") without `id`, monitors by name. */
const widgetSpecSchema = z.strictObject({
  type: z.enum(WIDGET_TYPES),
  title: z.string().trim().max(DASHBOARD_LIMITS.title_max_chars).default(''),
  position: widgetPositionSchema,
  data_source: dataSourceSpecSchema.nullable().default(null),
  options: z.record(z.string(), z.unknown()).default({}),
});

/** A dashboard: `description`, `layout` ({columns, row_height_px}), `is_public` and its `widgets[]` in order. */
export const dashboardSpecSchema = z.strictObject({
  description: z.string().trim().max(DASHBOARD_LIMITS.description_max_chars).default(''),
  layout: dashboardLayoutSchema.default({ columns: DASHBOARD_LIMITS.columns_default, row_height_px: DASHBOARD_LIMITS.row_height_px_default }),
  is_public: z.boolean().default(false),
  widgets: z.array(widgetSpecSchema).max(DASHBOARD_LIMITS.widgets_max).default([]),
});
type DashboardSpec = z.output<typeof dashboardSpecSchema>;
type WidgetView = z.output<typeof widgetSpecSchema>;

const PATH = '/v1/dashboards';

/** A widget's data source with `monitors` names turned into `monitor_ids` through `idOf`. */
function sourceWithIds(source: WidgetView['data_source'], idOf: (name: string) => string): Record<string, unknown> | null {
  if (!source) return null;
  if (!('monitors' in source) || source.monitors === undefined) return source;
  const { monitors, ...rest } = source;
  return { ...rest, monitor_ids: monitors.map(idOf) };
}

function widgetView(w: Widget, nameOf: (id: string) => string): WidgetView {
  const source = w.data_source as (Record<string, unknown> & { monitor_ids?: string[] }) | null;
  let data_source: Record<string, unknown> | null = source;
  if (source?.monitor_ids) {
    const { monitor_ids, ...rest } = source;
    data_source = { ...rest, monitors: monitor_ids.map(nameOf) };
  }
  return { type: w.type, title: w.title, position: w.position, data_source: data_source as WidgetView['data_source'], options: w.options };
}

async function putWidgets(api: ApiClient, id: string, widgets: WidgetView[], expected_version: number, need: (kind: 'monitor', name: string) => string): Promise<void> {
  await api.put(`${PATH}/${id}/widgets`, { expected_version, widgets: widgets.map((w) => ({ ...w, data_source: sourceWithIds(w.data_source, (n) => need('monitor', n)) })) });
}

/** Dashboards keyed by name; a change PATCHes the fields and PUTs the whole widget set, each with expected_version. */
export const dashboardKind: KindHandler = {
  kind: 'dashboard', section: 'dashboards', path: PATH, spec: dashboardSpecSchema,
  resolve(name, spec, ctx) {
    const s = spec as DashboardSpec;
    const issue = ctx.issue;
    const head = dashboardCreateSchema.safeParse({ name, description: s.description, layout: s.layout, is_public: s.is_public });
    if (!head.success) reportZod(head.error, issue);
    s.widgets.forEach((w, i) => {
      const named = w.data_source && 'monitors' in w.data_source ? w.data_source.monitors ?? [] : [];
      for (const n of named) if (!ctx.known('monitor', n)) issue(`widgets[${i}].data_source.monitors`, `no monitor named "${n}" in these files or your account`);
      if (w.position.x + w.position.w > s.layout.columns) issue(`widgets[${i}].position`, `x + w must be at most the layout's ${s.layout.columns} columns`);
    });
    const put = dashboardWidgetsPutSchema.safeParse({ widgets: s.widgets.map((w) => ({ ...w, data_source: sourceWithIds(w.data_source, () => newId('monitor')) })) });
    if (!put.success) reportZod(put.error, issue, (p) => p.replace(/\.monitor_ids/, '.monitors'));
    const view = { description: s.description, layout: s.layout, is_public: s.is_public, widgets: s.widgets };
    return { view, compare: Object.keys(view) };
  },
  async list(api) {
    const { items } = await api.get<{ items: Dashboard[] }>(PATH);
    // The list has no widgets: each personal dashboard is read whole.
    const whole = await Promise.all(items.map((d) => (d.team_id === null ? api.get<Dashboard>(`${PATH}/${d.id}`) : d)));
    return whole.map((d): Listed => ({
      id: d.id, name: d.name, team_id: d.team_id, created_at: d.created_at, version: d.version,
      view: (nameOf) => ({ description: d.description, layout: d.layout, is_public: d.is_public, widgets: (d.widgets ?? []).map((w) => widgetView(w, nameOf)) }),
    }));
  },
  exportSpec: (e) => e.view,
  async create(c, w) {
    const v = c.desired!.view as DashboardSpec;
    const made = await w.api.post<Dashboard>(PATH, { name: c.name, description: v.description, layout: v.layout, is_public: v.is_public });
    if (v.widgets.length) await putWidgets(w.api, made.id, v.widgets, made.version, w.need);
    return made.id;
  },
  async update(c, w) {
    const v = c.desired!.view as DashboardSpec;
    const id = c.existing!.id;
    let version = c.existing!.version!;
    const widgetsChange = c.fields.some((f) => f.path === 'widgets' || f.path.startsWith('widgets.'));
    const headChange = c.fields.some((f) => !(f.path === 'widgets' || f.path.startsWith('widgets.')));
    const patch = async () => { version = (await w.api.patch<Dashboard>(`${PATH}/${id}`, { description: v.description, layout: v.layout, is_public: v.is_public, expected_version: version })).version; };
    // A narrower grid is refused while a widget reaches past it: the widgets move first then.
    const narrower = v.layout.columns < (c.existing!.view.layout as { columns: number }).columns;
    if (headChange && !narrower) await patch();
    if (widgetsChange) {
      await putWidgets(w.api, id, v.widgets, version, w.need);
      version += 1;
    }
    if (headChange && narrower) await patch();
  },
};
