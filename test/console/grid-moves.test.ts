import t from 'tap';
import { clampCell, overlaps, placeable, stepCell } from '../../control-plane/console/src/pages/dashboard-widgets/grid-moves.js';

// The dashboard layout editor's rules (grid-moves.ts): overlap, the grid's bounds, and where a
// keyboard step or a drag takes a widget.

t.test('overlap: shared squares overlap, touching edges do not', async (t) => {
  t.ok(overlaps({ x: 0, y: 0, w: 4, h: 2 }, { x: 3, y: 1, w: 2, h: 2 }));
  t.notOk(overlaps({ x: 0, y: 0, w: 4, h: 2 }, { x: 4, y: 0, w: 4, h: 2 }), 'side by side');
  t.notOk(overlaps({ x: 0, y: 0, w: 4, h: 2 }, { x: 0, y: 2, w: 4, h: 2 }), 'one above the other');
});

t.test('clamp: inside the columns and the API bounds, whole cells', async (t) => {
  t.same(clampCell({ x: 10, y: -3, w: 6, h: 2 }, 12), { x: 6, y: 0, w: 6, h: 2 }, 'pushed back inside the right edge and the top');
  t.same(clampCell({ x: 0, y: 0, w: 30, h: 99 }, 12), { x: 0, y: 0, w: 12, h: 48 }, 'at most the columns wide and h_max high');
  t.same(clampCell({ x: 1.4, y: 2.6, w: 0, h: 0 }, 12), { x: 1, y: 3, w: 1, h: 1 }, 'rounded, at least one cell');
});

t.test('placeable and steps: no overlap, no step that goes nowhere', async (t) => {
  const others = [{ x: 4, y: 0, w: 4, h: 2 }];
  const left = { x: 0, y: 0, w: 4, h: 2 };
  t.equal(placeable({ ...left, x: 1 }, others, 12), null, 'onto another widget: refused');
  t.same(placeable({ ...left, y: 5 }, others, 12), { ...left, y: 5 }, 'free cells: taken');
  t.equal(stepCell(left, 'move', 1, 0, others, 12), null, 'arrow right into the neighbour');
  t.equal(stepCell(left, 'move', -1, 0, others, 12), null, 'arrow left at the edge goes nowhere');
  t.same(stepCell(left, 'move', 0, 1, others, 12), { x: 0, y: 1, w: 4, h: 2 }, 'arrow down');
  t.same(stepCell({ x: 0, y: 2, w: 4, h: 2 }, 'resize', 1, 1, others, 12), { x: 0, y: 2, w: 5, h: 3 }, 'shift: wider and taller, corner kept');
  t.same(stepCell(left, 'resize', -5, 0, others, 12), { x: 0, y: 0, w: 1, h: 2 }, 'a drag far left: one cell wide');
  t.equal(stepCell({ x: 0, y: 0, w: 1, h: 2 }, 'resize', -1, 0, others, 12), null, 'never narrower than one cell');
});
