import { useRef, useState } from 'preact/hooks';
import { t } from '../../i18n/i18n.js';
import { ARROWS, stepCell, type Cell } from './grid-moves.js';
import type { WidgetRow } from './widget-rows.js';

/** The editor grid's row height and gap, px (the dashboard's own row height is for viewing). */
const ROW_PX = 36;
const GAP_PX = 4;

const cellOf = (r: WidgetRow): Cell => ({ x: Number(r.x) || 0, y: Number(r.y) || 0, w: Number(r.w) || 1, h: Number(r.h) || 1 });

/** A drag in progress: the widget, move or resize, where the pointer went down and the cell it started from. */
interface Drag { key: number; mode: 'move' | 'resize'; px: number; py: number; from: Cell; pointer: number }

/**
 * The widget set laid out on the dashboard's grid (`columns` columns), for moving and resizing:
 * drag a widget to move it, drag its corner to resize it; or focus it and use the arrow keys to
 * move it, Shift and the arrow keys to resize it (the accessible way). Every change snaps to whole
 * cells and is refused when it would overlap another widget (grid-moves.ts); it goes to `onMove`
 * (the rows' x, y, w, h), saved with the rest of the set. Widgets are numbered as in the editor.
 * `locked` (a dashboard managed by a file): shown, nothing moves.
 */
export function LayoutGrid({ rows, columns, locked, onMove }: { rows: WidgetRow[]; columns: number; locked: boolean; onMove: (key: number, cell: Cell) => void }) {
  const grid = useRef<HTMLDivElement>(null);
  const drag = useRef<Drag | null>(null);
  const [said, say] = useState('');
  const cells = rows.map((r) => ({ key: r.key, cell: cellOf(r) }));
  const othersOf = (key: number) => cells.filter((c) => c.key !== key).map((c) => c.cell);
  const label = (r: WidgetRow, i: number, c: Cell) => t('dash.layout_box', { n: i + 1, title: r.title || t(`dash.type.${r.type}`), ...c });
  const tryStep = (r: WidgetRow, i: number, from: Cell, mode: Drag['mode'], dx: number, dy: number, speak: boolean) => {
    const next = stepCell(from, mode, dx, dy, othersOf(r.key), columns);
    if (next) onMove(r.key, next);
    if (speak) say(next ? label(r, i, next) : t('dash.layout_blocked', { n: i + 1 }));
  };
  const onKey = (r: WidgetRow, i: number) => (e: KeyboardEvent) => {
    const step = ARROWS[e.key];
    if (!step || locked) return;
    e.preventDefault();
    tryStep(r, i, cellOf(r), e.shiftKey ? 'resize' : 'move', step.dx, step.dy, true);
  };
  const onDown = (r: WidgetRow) => (e: PointerEvent) => {
    if (e.button !== 0 || locked) return;
    const mode = (e.target as HTMLElement).classList.contains('layout-handle') ? 'resize' : 'move';
    drag.current = { key: r.key, mode, px: e.clientX, py: e.clientY, from: cellOf(r), pointer: e.pointerId };
    (e.currentTarget as HTMLElement).setPointerCapture(e.pointerId);
    e.preventDefault();
  };
  const onPointerMove = (r: WidgetRow, i: number) => (e: PointerEvent) => {
    const d = drag.current;
    if (!d || d.key !== r.key || d.pointer !== e.pointerId || !grid.current) return;
    // The grid has no padding: its client width is the columns and the gaps between them.
    const colPx = (grid.current.clientWidth + GAP_PX) / columns;
    const dx = Math.round((e.clientX - d.px) / colPx);
    const dy = Math.round((e.clientY - d.py) / (ROW_PX + GAP_PX));
    tryStep(r, i, d.from, d.mode, dx, dy, false);
  };
  const onUp = (r: WidgetRow, i: number) => (e: PointerEvent) => {
    if (drag.current?.pointer !== e.pointerId) return;
    drag.current = null;
    say(label(r, i, cellOf(r)));
  };
  const height = Math.max(0, ...cells.map((c) => c.cell.y + c.cell.h)) + 2;
  return (
    <div class="layout-editor">
      <h2 id="layout-heading">{t('dash.layout')}</h2>
      <p class="hint" id="layout-help">{t('dash.layout_help')}</p>
      <div ref={grid} class="layout-grid" role="group" aria-labelledby="layout-heading" aria-describedby="layout-help"
        style={{ gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))`, gridTemplateRows: `repeat(${height}, ${ROW_PX}px)`, gap: `${GAP_PX}px` }}>
        {rows.map((r, i) => {
          const c = cellOf(r);
          return (
            <button key={r.key} type="button" class="layout-box" aria-label={label(r, i, c)} aria-describedby="layout-help"
              style={{ gridColumn: `${c.x + 1} / span ${c.w}`, gridRow: `${c.y + 1} / span ${c.h}` }}
              onKeyDown={onKey(r, i)} onPointerDown={onDown(r)} onPointerMove={onPointerMove(r, i)} onPointerUp={onUp(r, i)} onPointerCancel={onUp(r, i)}>
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
