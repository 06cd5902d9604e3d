import { t } from '../../i18n/i18n.js';
import type { Cell } from './grid-moves.js';
import { useGridMoves } from './use-grid-moves.js';
import type { WidgetRow } from './widget-rows.js';

/** The editor grid's row height and gap, px (the dashboard's own row height is for viewing). */
const ROW_PX = 36;
const GAP_PX = 4;

const cellOf = (r: WidgetRow): Cell => ({ x: Number(r.x) || 0, y: Number(r.y) || 0, w: Number(r.w) || 1, h: Number(r.h) || 1 });

/**
 * The widget set laid out on the dashboard's grid (`columns` columns), for moving and resizing:
 * drag a widget to move it, drag its corner to resize it; or focus it and use the arrow keys to
 * move it, Shift and the arrow keys to resize it (the accessible way; use-grid-moves.ts). Every
 * change snaps to whole cells and is refused when it would overlap another widget; it goes to
 * `onMove` (the rows' x, y, w, h), saved with the rest of the set. Widgets are numbered as in the
 * editor. `locked` (a dashboard managed by a file): shown, nothing moves.
 */
export function LayoutGrid({ rows, columns, locked, onMove }: { rows: WidgetRow[]; columns: number; locked: boolean; onMove: (key: number, cell: Cell) => void }) {
  const items = rows.map((r, i) => {
    const title = r.title || t(`dash.type.${r.type}`);
    return { key: r.key, cell: cellOf(r), label: (c: Cell) => t('dash.layout_box', { n: i + 1, title, ...c }), blocked: t('dash.layout_blocked', { n: i + 1 }) };
  });
  const { grid, said, boxProps } = useGridMoves({ items, columns, row_px: ROW_PX, gap_px: GAP_PX, locked, onMove: (key, c) => onMove(key as number, c) });
  const height = Math.max(0, ...items.map((c) => c.cell.y + c.cell.h)) + 2;
  return (
    <div class="layout-editor">
      <h2 id="layout-heading">{t('dash.layout')}</h2>
      <p class="hint" id="layout-help">{t('dash.layout_help')}</p>
      <div ref={grid} class="layout-grid" role="group" aria-labelledby="layout-heading" aria-describedby="layout-help"
        style={{ gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))`, gridTemplateRows: `repeat(${height}, ${ROW_PX}px)`, gap: `${GAP_PX}px` }}>
        {rows.map((r, i) => {
          const c = items[i]!.cell;
          return (
            <button key={r.key} type="button" class="layout-box" aria-describedby="layout-help" {...boxProps(items[i]!)}
              style={{ gridColumn: `${c.x + 1} / span ${c.w}`, gridRow: `${c.y + 1} / span ${c.h}` }}>
              <span class="layout-title">{i + 1}. {r.title || t(`dash.type.${r.type}`)}</span>
              {!locked && <span class="layout-handle" aria-hidden="true" />}
            </button>
          );
        })}
      </div>
      <p class="sr-only" role="status" aria-live="polite">{said}</p>
    </div>
  );
}
