import { useRef, useState } from 'preact/hooks';
import { ARROWS, stepCell, type Cell } from './grid-moves.js';

/** A widget on a grid being arranged: its key, its cell now, its accessible label at a cell, and what is said when a step is refused. */
export interface Movable { key: string | number; cell: Cell; label: (c: Cell) => string; blocked: string }

/** A drag in progress: the widget, move or resize, where the pointer went down and the cell it started from. */
interface Drag { key: Movable['key']; mode: 'move' | 'resize'; px: number; py: number; from: Cell; pointer: number }

/**
 * Moving and resizing widgets on a CSS grid of `columns` columns, rows `row_px` high and `gap_px`
 * apart (no padding: its client width is the columns and the gaps), by pointer and keyboard: a
 * drag of a widget's box moves it, a drag of its `.layout-handle` corner resizes it; focused, the
 * arrow keys move it by a cell, Shift and the arrow keys resize it. Every step snaps to whole
 * cells and is refused when it would overlap another widget or leave the grid (grid-moves.ts);
 * an accepted one goes to `onMove`. A keyboard step, refused or not, and the end of a drag are
 * announced in `said` (for a `role=status` element). `grid` goes on the grid element, `boxProps`
 * on each widget's focusable box (a button). `locked`: nothing moves.
 */
export function useGridMoves({ items, columns, row_px, gap_px, locked, onMove }: {
  items: Movable[]; columns: number; row_px: number; gap_px: number; locked: boolean; onMove: (key: Movable['key'], cell: Cell) => void;
}) {
  const grid = useRef<HTMLDivElement>(null);
  const drag = useRef<Drag | null>(null);
  const [said, say] = useState('');
  const tryStep = (it: Movable, from: Cell, mode: Drag['mode'], dx: number, dy: number, speak: boolean) => {
    const others = items.filter((o) => o.key !== it.key).map((o) => o.cell);
    const next = stepCell(from, mode, dx, dy, others, columns);
    if (next) onMove(it.key, next);
    if (speak) say(next ? it.label(next) : it.blocked);
  };
  const boxProps = (it: Movable) => ({
    'aria-label': it.label(it.cell),
    onKeyDown: (e: KeyboardEvent) => {
      const step = ARROWS[e.key];
      if (!step || locked) return;
      e.preventDefault();
      tryStep(it, it.cell, e.shiftKey ? 'resize' : 'move', step.dx, step.dy, true);
    },
    onPointerDown: (e: PointerEvent) => {
      if (e.button !== 0 || locked) return;
      const mode = (e.target as HTMLElement).classList.contains('layout-handle') ? 'resize' : 'move';
      drag.current = { key: it.key, mode, px: e.clientX, py: e.clientY, from: it.cell, pointer: e.pointerId };
      (e.currentTarget as HTMLElement).setPointerCapture(e.pointerId);
      e.preventDefault();
    },
    onPointerMove: (e: PointerEvent) => {
      const d = drag.current;
      if (!d || d.key !== it.key || d.pointer !== e.pointerId || !grid.current) return;
      const colPx = (grid.current.clientWidth + gap_px) / columns;
      tryStep(it, d.from, d.mode, Math.round((e.clientX - d.px) / colPx), Math.round((e.clientY - d.py) / (row_px + gap_px)), false);
    },
    onPointerUp: (e: PointerEvent) => end(it, e),
    onPointerCancel: (e: PointerEvent) => end(it, e),
  });
  const end = (it: Movable, e: PointerEvent) => {
    if (drag.current?.pointer !== e.pointerId) return;
    drag.current = null;
    say(it.label(it.cell));
  };
  return { grid, said, boxProps };
}
