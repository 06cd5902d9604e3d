import type { ComponentChildren } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { AsCodeMark, Dashboard, Widget } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useSubmit } from '../../api/use-submit.js';
import { Conflict } from '../../components/Conflict.js';
import { lockedBy } from '../../components/managed/Managed.js';
import { DashboardView } from '../../components/widgets/DashboardView.js';
import { WIDGET_GAP_PX } from '../../components/widgets/WidgetGrid.js';
import { t } from '../../i18n/i18n.js';
import type { Cell } from '../dashboard-widgets/grid-moves.js';
import { useGridMoves } from '../dashboard-widgets/use-grid-moves.js';
import { rowOf, widgetOf } from '../dashboard-widgets/widget-rows.js';

const positions = (widgets: Widget[]) => new Map(widgets.map((w) => [w.id, w.position]));
const same = (a: Cell, b: Cell) => a.x === b.x && a.y === b.y && a.w === b.w && a.h === b.h;

/**
 * A dashboard's widgets (DashboardView) and arranging them in place: "Arrange widgets" lays a
 * control over each widget that moves and resizes it by pointer or keyboard, as the widget
 * editor's grid does (use-grid-moves.ts: snapped to cells, never overlapping); "Save layout"
 * sends the widget set with the new positions, each widget otherwise as stored (widget-rows.ts),
 * with PUT {base}/widgets and the version it was read at (`expected_version`): a change made
 * elsewhere since is refused (409 CONFLICT, shown with a reload) and nothing is written
 * (docs/api/dashboards.md "Widgets", "Versions"). `mark`: a dashboard applied from a file, which
 * does not move here (docs/api/as-code.md "Marks").
 */
export function ArrangedView({ dashboard: d, base, mark, reload, empty }: { dashboard: Dashboard; base: string; mark: AsCodeMark | null; reload: () => void; empty: ComponentChildren }) {
  const widgets = d.widgets ?? [];
  const [arranging, setArranging] = useState(false);
  const [cells, setCells] = useState(() => positions(widgets));
  const [saved, setSaved] = useState(false);
  useEffect(() => setCells(positions(d.widgets ?? [])), [d.version]);
  const cellOf = (w: Widget) => cells.get(w.id) ?? w.position;
  const items = widgets.map((w, i) => {
    const title = w.title || t(`dash.type.${w.type}`);
    return { key: w.id, cell: cellOf(w), label: (c: Cell) => t('dash.layout_box', { n: i + 1, title, ...c }), blocked: t('dash.layout_blocked', { n: i + 1 }) };
  });
  const moves = useGridMoves({
    items, columns: d.layout.columns, row_px: d.layout.row_height_px, gap_px: WIDGET_GAP_PX, locked: !arranging,
    onMove: (key, c) => { setSaved(false); setCells((m) => new Map(m).set(key as string, c)); },
  });
  const { busy, error, setError, submit } = useSubmit(async () => {
    const body = widgets.map((w) => widgetOf(rowOf({ ...w, position: cellOf(w) })));
    await api('PUT', `${base}/widgets`, { widgets: body.map((b) => ('widget' in b ? b.widget : null)), expected_version: d.version });
    setArranging(false);
    setSaved(true);
    reload();
  });
  const stop = () => { setError(null); setArranging(false); setCells(positions(widgets)); };
  // Saved: the widgets stand where they were saved while the reload brings the new version, not
  // back at the positions read before it for that moment.
  const shown = useMemo(() => (saved ? widgets.map((w) => ({ ...w, position: cellOf(w) })) : widgets), [widgets, saved, cells]);
  const changed = widgets.some((w) => !same(w.position, cellOf(w)));
  const arrange = arranging ? {
    grid: moves.grid,
    cellOf,
    box: (w: Widget, i: number) => (
      <button type="button" class="layout-box arrange-box" aria-describedby="arrange-help" {...moves.boxProps(items[i]!)}>
        <span class="layout-title arrange-chip" aria-hidden="true">{i + 1}</span>
        <span class="layout-handle" aria-hidden="true" />
      </button>
    ),
  } : undefined;
  return (
    <>
      {widgets.length > 0 && (
        <form class="actions" onSubmit={submit}>
          {arranging ? (
            <>
              <button type="submit" class="primary" disabled={busy || !changed}>{t('dash.arrange_save')}</button>
              <button type="button" onClick={stop}>{t('form.cancel')}</button>
            </>
          ) : <button type="button" {...lockedBy(mark)} onClick={() => { setSaved(false); setArranging(true); }}>{t('dash.arrange')}</button>}
          {saved && <span role="status">{t('dash.arrange_saved')}</span>}
        </form>
      )}
      {arranging && <p class="hint" id="arrange-help">{t('dash.arrange_help')}</p>}
      <Conflict id="arrange-error" error={error} reload={() => { stop(); reload(); }} />
      <DashboardView base={base} layout={d.layout} widgets={shown} empty={empty} arrange={arrange} />
      <p class="sr-only" role="status" aria-live="polite">{moves.said}</p>
    </>
  );
}
