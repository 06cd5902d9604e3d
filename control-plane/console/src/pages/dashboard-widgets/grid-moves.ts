import { GRID_BOUNDS } from '../../api/vocabulary.js';

/*
 * Moving and resizing widgets on a dashboard's grid (docs/api/dashboards.md "Widgets": `position`
 * in grid cells, column `x` from 0, row `y` from 0, `w` columns wide, `h` rows high). Pure: the
 * layout editor's pointer and keyboard handlers ask here where a widget may go.
 */

/** A widget's place in grid cells. */
export interface Cell { x: number; y: number; w: number; h: number }

/** Whether two cells share any grid square (touching edges do not). */
export function overlaps(a: Cell, b: Cell): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

const within = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, n));

/**
 * `c` kept inside a grid of `columns` columns and the API's bounds (GRID_BOUNDS: `y` at most
 * y_max, `h` at most h_max): `w` 1..columns, `x` so that the widget ends by the last column.
 */
export function clampCell(c: Cell, columns: number): Cell {
  const w = within(Math.round(c.w), 1, columns);
  const h = within(Math.round(c.h), 1, GRID_BOUNDS.h_max);
  return { x: within(Math.round(c.x), 0, columns - w), y: within(Math.round(c.y), 0, GRID_BOUNDS.y_max), w, h };
}

/** `wanted` clamped to the grid, or null when it would overlap one of `others` (widgets never overlap). */
export function placeable(wanted: Cell, others: readonly Cell[], columns: number): Cell | null {
  const c = clampCell(wanted, columns);
  return others.some((o) => overlaps(c, o)) ? null : c;
}

/** The arrow keys, as a step of one cell. */
export const ARROWS: Record<string, { dx: number; dy: number }> = {
  ArrowLeft: { dx: -1, dy: 0 }, ArrowRight: { dx: 1, dy: 0 }, ArrowUp: { dx: 0, dy: -1 }, ArrowDown: { dx: 0, dy: 1 },
};

/**
 * Where a move or resize by whole cells (`dx`, `dy`, from a drag's start or an arrow key) takes
 * `from`: a move shifts `x`/`y`, a resize changes `w`/`h` (the top-left corner stays). Null when
 * the result overlaps another widget or is where `from` already is (a step against the edge).
 */
export function stepCell(from: Cell, mode: 'move' | 'resize', dx: number, dy: number, others: readonly Cell[], columns: number): Cell | null {
  const wanted = mode === 'move' ? { ...from, x: from.x + dx, y: from.y + dy } : { ...from, w: from.w + dx, h: from.h + dy };
  const c = placeable(wanted, others, columns);
  return c && (c.x !== from.x || c.y !== from.y || c.w !== from.w || c.h !== from.h) ? c : null;
}
