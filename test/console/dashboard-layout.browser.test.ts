import { mkdirSync } from 'node:fs';
import t from 'tap';
import { check, ensureBuilt, loginInBrowser, openBrowser, SHOTS, skip } from './browser-kit.js';
import { twoWidgetBoard } from './dashboard-kit.js';

// Moving and resizing dashboard widgets on the widget editor's grid, in Chromium against a real
// control plane on real Postgres: by keyboard (arrow keys move, Shift and the arrow keys resize,
// a move onto another widget refused and announced), by pointer (a drag moves, a drag of the
// corner resizes, snapped to whole cells), the number fields following; saved with one versioned
// PUT and read back through the API; a save against a version changed elsewhere refused (409).

t.test('console in Chromium: dashboard layout by keyboard and pointer', { skip }, async (t) => {
  ensureBuilt();
  mkdirSync(SHOTS, { recursive: true });
  const { url, user, api, board, set } = await twoWidgetBoard(t, 'Layout board');

  const { page, problems } = await openBrowser(t);
  await loginInBrowser(page, url, user.email, user.password);
  await page.goto(`${url}/dashboards/${board.id}/widgets`);
  const left = page.getByRole('button', { name: /^Widget 1: Left,/ });
  const right = page.getByRole('button', { name: /^Widget 2: Right,/ });
  await left.waitFor({ timeout: 30_000 });
  const field = (n: number, label: string) => page.getByRole('group', { name: new RegExp(`^Widget ${n}:`) }).getByLabel(label);
  const said = (text: string) => page.getByRole('status').filter({ hasText: text }).waitFor({ timeout: 30_000 });

  // Keyboard: a move onto the other widget is refused and said; down twice, then wider and taller.
  await left.focus();
  await page.keyboard.press('ArrowRight');
  await said('Widget 1 cannot go there');
  t.equal(await field(1, 'Column (x)').inputValue(), '0', 'the refused move changed nothing');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Shift+ArrowRight');
  await page.keyboard.press('Shift+ArrowDown');
  await said('Widget 1: Left, column 0, row 2, 5 wide, 3 high');
  t.same(await Promise.all(['Column (x)', 'Row (y)', 'Width (w)', 'Height (h)'].map((l) => field(1, l).inputValue())), ['0', '2', '5', '3'], 'the fields follow the keys');
  await check(t, page, 'dashboard-layout');

  // Pointer: drag the right widget two columns right and five rows down, then its corner one cell out.
  const grid = page.getByRole('group', { name: 'Layout' });
  const gridBox = (await grid.boundingBox())!;
  const col = (gridBox.width - 2 + 4) / 12; // inside its 1 px border: 12 columns and 11 gaps of 4 px
  const row = 36 + 4;
  const from = (await right.boundingBox())!;
  await page.mouse.move(from.x + 20, from.y + 10);
  await page.mouse.down();
  await page.mouse.move(from.x + 20 + 2 * col, from.y + 10 + 5 * row, { steps: 8 });
  await page.mouse.up();
  await page.getByRole('button', { name: 'Widget 2: Right, column 6, row 5, 4 wide, 2 high' }).waitFor({ timeout: 30_000 });
  t.same(await Promise.all(['Column (x)', 'Row (y)'].map((l) => field(2, l).inputValue())), ['6', '5'], 'dragged two columns right, five rows down, snapped');
  const handle = right.locator('.layout-handle');
  const corner = (await handle.boundingBox())!;
  await page.mouse.move(corner.x + corner.width / 2, corner.y + corner.height / 2);
  await page.mouse.down();
  await page.mouse.move(corner.x + corner.width / 2 + col, corner.y + corner.height / 2 + row, { steps: 6 });
  await page.mouse.up();
  await page.getByRole('button', { name: 'Widget 2: Right, column 6, row 5, 5 wide, 3 high' }).waitFor({ timeout: 30_000 });
  t.same(await Promise.all(['Width (w)', 'Height (h)'].map((l) => field(2, l).inputValue())), ['5', '3'], 'its corner dragged one cell out: one wider, one taller');

  // Saved whole with the version read; read back through the API.
  await page.getByRole('button', { name: 'Save widgets' }).click();
  await page.waitForURL(`**/dashboards/${board.id}`, { timeout: 30_000 });
  const saved = (await api('GET', `/v1/dashboards/${board.id}`)).data;
  t.equal(saved.version, set.version + 1, 'one write');
  t.same(saved.widgets.map((w: { position: unknown }) => w.position), [{ x: 0, y: 2, w: 5, h: 3 }, { x: 6, y: 5, w: 5, h: 3 }], 'the new layout through the API');
  t.same(saved.widgets.map((w: { id: string }) => w.id), set.widgets.map((w: { id: string }) => w.id), 'the widgets keep their ids');

  // A move saved against a version changed elsewhere is refused, and nothing is written.
  await page.goto(`${url}/dashboards/${board.id}/widgets`);
  await left.waitFor({ timeout: 30_000 });
  await api('PATCH', `/v1/dashboards/${board.id}`, { name: 'Renamed elsewhere' });
  await left.focus();
  await page.keyboard.press('ArrowUp');
  await page.getByRole('button', { name: 'Save widgets' }).click();
  await page.getByText(/changed elsewhere \(it is now at version \d+\)/).waitFor({ timeout: 30_000 });
  t.same((await api('GET', `/v1/dashboards/${board.id}`)).data.widgets[0].position, { x: 0, y: 2, w: 5, h: 3 }, 'the stale layout was not written');
  t.same(problems.filter((p) => !/status of 409/.test(p)), [], 'no script error or CSP violation (but the conflict the test provoked)');
});
