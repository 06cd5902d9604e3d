import type { ComponentType } from 'preact';
import type { DashboardLayout, Widget, WidgetData, WidgetType } from '@vantage/shared-protocol';
import { t } from '../../i18n/i18n.js';
import { DonutWidget } from './Donut.js';
import { BarWidget, GaugeWidget, StatWidget, TableWidget, TextWidget } from './Simple.js';
import { StripWidget } from './Strip.js';
import { TimeseriesWidget } from './Timeseries.js';
import type { WidgetProps } from './types.js';

/** The one place that picks a renderer by widget type (as Grafana's panel plugins, one per type). */
const RENDERERS: Record<WidgetType, ComponentType<WidgetProps>> = {
  timeseries: TimeseriesWidget,
  stat: StatWidget,
  gauge: GaugeWidget,
  status_strip: StripWidget,
  heatmap: StripWidget,
  donut: DonutWidget,
  bar: BarWidget,
  table: TableWidget,
  text: TextWidget,
};

/**
 * A dashboard's widgets on its grid (`layout.columns` columns, rows `layout.row_height_px`
 * high; each widget at its `position`), each one a labelled region with its title and its data
 * from the widget-data call, or its own error (docs/api/dashboards.md "Widget data").
 */
export function WidgetGrid({ layout, widgets, data }: { layout: DashboardLayout; widgets: Widget[]; data: WidgetData[] | null }) {
  const byId = new Map((data ?? []).map((d) => [d.widget_id, d]));
  return (
    <div class="widget-grid" style={{ gridTemplateColumns: `repeat(${layout.columns}, minmax(0, 1fr))`, gridAutoRows: `${layout.row_height_px}px` }}>
      {widgets.map((w) => {
        const d = byId.get(w.id);
        const Renderer = RENDERERS[w.type];
        const titleId = `wt-${w.id}`;
        return (
          <section key={w.id} class={`widget widget-${w.type}`} aria-labelledby={titleId}
            style={{ gridColumn: `${w.position.x + 1} / span ${w.position.w}`, gridRow: `${w.position.y + 1} / span ${w.position.h}` }}>
            <h2 id={titleId} class="widget-title">{w.title || t(`dash.type.${w.type}`)}</h2>
            {/* Focusable, so that a widget whose content overflows scrolls by keyboard too. */}
            <div class="widget-body" tabIndex={0}>
              {w.type === 'text' ? <Renderer widget={w} data={{}} />
                : d?.error ? <p class="form-error" role="alert">{d.error.message} ({d.error.code})</p>
                : d?.data ? <Renderer widget={w} data={d.data} />
                : <p class="hint">{data ? t('dash.no_data') : t('state.loading')}</p>}
            </div>
          </section>
        );
      })}
    </div>
  );
}
