import type { Widget } from '@vantage/shared-protocol';
import { METRICS_BY_KIND, METRICS_OF_TYPE, type Metric, type WIDGET_TYPE_LIST } from '../../api/vocabulary.js';

type WidgetType = (typeof WIDGET_TYPE_LIST)[number];

/** One widget as the editor holds it: strings for the inputs, `options` as JSON text (a text widget's: its Markdown). */
export interface WidgetRow {
  key: number; id: string | null; type: WidgetType; title: string; metric: Metric | ''; monitor_ids: string[]; mine: boolean;
  x: string; y: string; w: string; h: string; options: string;
}

let nextKey = 1;

/** The data-source kind of a metric (docs/api/dashboards.md "Data sources"). */
export function kindOf(metric: Metric): keyof typeof METRICS_BY_KIND {
  return (Object.keys(METRICS_BY_KIND) as Array<keyof typeof METRICS_BY_KIND>).find((k) => (METRICS_BY_KIND[k] as readonly string[]).includes(metric))!;
}

/** Whether a metric's data source takes `monitor_ids`: required for latency and checks by node, optional for uptime and alert events. */
export const takesMonitors = (m: Metric | ''): boolean => m === 'latency' || m === 'checks_by_node' || m === 'uptime' || m === 'alert_events';
/** Whether `monitor_ids` must be given (1-20). */
export const needsMonitors = (m: Metric | ''): boolean => m === 'latency' || m === 'checks_by_node';

/** A stored widget as an editor row. */
export function rowOf(w: Widget): WidgetRow {
  const source = (w.data_source ?? {}) as { metric?: Metric; monitor_ids?: string[]; mine?: boolean };
  return {
    key: nextKey++, id: w.id, type: w.type, title: w.title, metric: source.metric ?? '', monitor_ids: source.monitor_ids ?? [], mine: source.mine === true,
    x: String(w.position.x), y: String(w.position.y), w: String(w.position.w), h: String(w.position.h),
    options: w.type === 'text' ? String(w.options.markdown ?? '') : Object.keys(w.options).length ? JSON.stringify(w.options) : '',
  };
}

/** The metric a new widget of `type` starts with: uptime where it can show it (it needs no monitor), else its first. */
export function defaultMetric(type: WidgetType): Metric | '' {
  const allowed = METRICS_OF_TYPE[type] as readonly Metric[];
  return allowed.includes('uptime') ? 'uptime' : allowed[0] ?? '';
}

/** A new row: a `type` widget under the lowest one (`below`: the first free grid row), full width of `columns`. */
export function newRow(type: WidgetType, below: number, columns: number): WidgetRow {
  return {
    key: nextKey++, id: null, type, title: '', metric: defaultMetric(type), monitor_ids: [], mine: false,
    x: '0', y: String(below), w: String(Math.min(columns, 6)), h: type === 'stat' || type === 'gauge' ? '2' : '4',
    options: '',
  };
}

/** The first grid row below every widget of `rows`. */
export const firstFreeRow = (rows: WidgetRow[]): number => rows.reduce((n, r) => Math.max(n, (Number(r.y) || 0) + (Number(r.h) || 1)), 0);

/**
 * The widget as PUT /v1/dashboards/{id}/widgets takes it (docs/api/dashboards.md "Widgets"), or
 * the message of the field that cannot be sent (options that are not a JSON object).
 */
export function widgetOf(r: WidgetRow): { widget: Record<string, unknown> } | { fault: string } {
  let options: unknown = r.type === 'text' ? { markdown: r.options } : {};
  if (r.type !== 'text' && r.options.trim()) {
    try { options = JSON.parse(r.options); } catch { return { fault: 'options' }; }
    if (typeof options !== 'object' || options === null || Array.isArray(options)) return { fault: 'options' };
  }
  const source = r.type === 'text' || !r.metric ? null : {
    kind: kindOf(r.metric), metric: r.metric,
    ...(takesMonitors(r.metric) && r.monitor_ids.length > 0 ? { monitor_ids: r.monitor_ids } : {}),
    ...(kindOf(r.metric) === 'node' && r.mine ? { mine: true } : {}),
  };
  return {
    widget: {
      ...(r.id ? { id: r.id } : {}), type: r.type, title: r.title,
      position: { x: Number(r.x), y: Number(r.y), w: Number(r.w), h: Number(r.h) },
      ...(source ? { data_source: source } : {}), options,
    },
  };
}
