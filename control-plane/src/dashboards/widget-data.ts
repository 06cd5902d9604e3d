import type { Widget, WidgetData } from '@vantage/shared-protocol';
import { ApiError } from '../errors.js';
import type { Logger } from '../log.js';
import { monitorWidgetData, type DataContext } from './monitor-data.js';
import { alertEventsData, incidentsData, nodeData } from './other-data.js';

/*
 * Every widget's data for one range (GET /v1/dashboards/{id}/data and its public twin,
 * docs/api/dashboards.md "Widget data"): widgets are answered side by side, and one that fails
 * (a monitor it names was deleted, its options give too many buckets, a database error) gets an
 * `error` of its own while the others still answer.
 */

/** The data of one widget (null for `text`, whose content is its options). @throws for this widget alone */
async function oneWidget(ctx: DataContext, w: Widget): Promise<Record<string, unknown> | null> {
  const source = w.data_source as { kind: string; metric: string; monitor_ids?: string[]; mine?: boolean } | null;
  if (w.type === 'text' || !source) return null;
  switch (source.metric) {
    case 'latency': case 'uptime': case 'checks_by_node':
      return monitorWidgetData(ctx, { type: w.type, metric: source.metric, monitor_ids: source.monitor_ids, options: w.options });
    case 'alert_events':
      return alertEventsData(ctx, w.type, source.monitor_ids, w.options);
    case 'incidents':
      return incidentsData(ctx, w.type, w.options);
    case 'directory': case 'online_count':
      return nodeData(ctx, w.type, source.metric, source.mine === true, w.options);
    default:
      throw new ApiError('VALIDATION_FAILED', `unknown metric ${source.metric}`);
  }
}

/**
 * The data of `widgets` over ctx's range, in their order: each `{widget_id, type, data, error}`
 * with exactly one of data and error set (text widgets: both null). Errors other than ApiError
 * are logged and answered as INTERNAL_ERROR without their message.
 */
export async function widgetsData(ctx: DataContext, widgets: Widget[], log: Logger): Promise<WidgetData[]> {
  return Promise.all(widgets.map(async (w): Promise<WidgetData> => {
    try {
      return { widget_id: w.id, type: w.type, data: await oneWidget(ctx, w), error: null };
    } catch (err) {
      if (err instanceof ApiError) return { widget_id: w.id, type: w.type, data: null, error: { code: err.code, message: err.message } };
      log.error({ err, widget_id: w.id }, 'dashboard widget data failed');
      return { widget_id: w.id, type: w.type, data: null, error: { code: 'INTERNAL_ERROR', message: 'this widget could not be answered' } };
    }
  }));
}
