import { newId, type Widget, type WidgetInput } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';
import { ApiError } from '../errors.js';
import type { DashboardRow } from './dashboards.db.js';
import { scopeOf } from './owner.js';
import { ownerMonitors } from './widget-data.db.js';

/**
 * The widget set of a PUT as stored (docs/api/dashboards.md "Widgets"): each widget's id kept
 * when given and made when omitted, options and metric already checked by the schema. Here, what
 * needs the dashboard: ids unique, every widget inside the grid's columns, and every named monitor
 * one of the dashboard owner's.
 * @throws ApiError VALIDATION_FAILED naming every faulty field (`details.fields`); nothing is written
 */
export async function checkedWidgets(ex: SqlExecutor, row: DashboardRow, inputs: WidgetInput[]): Promise<Widget[]> {
  const fields: Array<{ path: string; message: string }> = [];
  const seen = new Set<string>();
  inputs.forEach((w, i) => {
    if (w.id !== undefined) {
      if (seen.has(w.id)) fields.push({ path: `widgets[${i}].id`, message: 'used by an earlier widget' });
      seen.add(w.id);
    }
    if (w.position.x + w.position.w > row.layout.columns) {
      fields.push({ path: `widgets[${i}].position`, message: `x + w must be at most the layout's ${row.layout.columns} columns` });
    }
  });
  const named = [...new Set(inputs.flatMap((w) => (w.data_source && 'monitor_ids' in w.data_source ? w.data_source.monitor_ids ?? [] : [])))];
  if (named.length > 0) {
    const owned = new Set((await ownerMonitors(ex, scopeOf(row), named, named.length)).map((m) => m.id));
    inputs.forEach((w, i) => {
      const ids = w.data_source && 'monitor_ids' in w.data_source ? w.data_source.monitor_ids ?? [] : [];
      ids.forEach((id, k) => {
        if (!owned.has(id)) fields.push({ path: `widgets[${i}].data_source.monitor_ids[${k}]`, message: 'no such monitor of the dashboard\'s owner' });
      });
    });
  }
  if (fields.length > 0) throw new ApiError('VALIDATION_FAILED', `${fields[0]!.path}: ${fields[0]!.message}`, { fields });
  return inputs.map((w) => ({
    id: w.id ?? newId('widget'), type: w.type, title: w.title, position: w.position, data_source: w.data_source ?? null, options: w.options,
  }));
}
