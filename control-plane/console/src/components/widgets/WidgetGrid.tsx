import type { ComponentChildren, ComponentType, Ref } from 'preact';
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

/** The gap between widgets on the grid, px (set here, read by whoever maps pointer moves to cells). */
export const WIDGET_GAP_PX = 12;

/**
 * Widgets being arranged on the grid: the grid element's ref, each widget's cell as arranged so
 * far (it may differ from the saved `position`) and the control laid over it (pages/dashboard).
 */
export interface Arrange { grid: Ref<HTMLDivElement>; cellOf: (w: Widget) => Widget['position']; box: (w: Widget, i: number) => ComponentChildren }

/**
 * A dashboard's widgets on its grid (`layout.columns` columns, rows `layout.row_height_px`
 * high; each widget at its `position`), each one a labelled region with its title and its data
 * from the widget-data call, or its own error (docs/api/dashboards.md "Widget data"). With
 * `arrange`, each widget is where it is arranged and has its control laid over it.
 */
export function WidgetGrid({ layout, widgets, data, arrange }: { layout: DashboardLayout; widgets: Widget[]; data: WidgetData[] | null; arrange?: Arrange }) {
  const byId = new Map((data ?? []).map((d) => [d.widget_id, d]));
  return (
    <div ref={arrange?.grid} class={arrange ? 'widget-grid arranging' : 'widget-grid'} style={{ gridTemplateColumns: `repeat(${layout.columns}, minmax(0, 1fr))`, gridAutoRows: `${layout.row_height_px}px`, gap: `${WIDGET_GAP_PX}px` }}>
      {widgets.map((w, i) => {
        const d = byId.get(w.id);
        const Renderer = RENDERERS[w.type];
        const titleId = `wt-${w.id}`;
        const at = arrange?.cellOf(w) ?? w.position;
        return (
          <section key={w.id} class={`widget widget-${w.type}`} aria-labelledby={titleId}
            style={{ gridColumn: `${at.x + 1} / span ${at.w}`, gridRow: `${at.y + 1} / span ${at.h}` }}>
            <h2 id={titleId} class="widget-title">{w.title || t(`dash.type.${w.type}`)}</h2>
            {/* Focusable, so that a widget whose content overflows scrolls by keyboard too. */}
            <div class="widget-body" tabIndex={0}>
              {w.type === 'text' ? <Renderer widget={w} data={{}} />
                : d?.error ? <p class="form-error" role="alert">{d.error.message} ({d.error.code})</p>
                : d?.data ? <Renderer widget={w} data={d.data} />
                : <p class="hint">{data ? t('dash.no_data') : t('state.loading')}</p>}
            </div>
            {arrange?.box(w, i)}
          </section>
        );
      })}
    </div>
  );
}
