import { mkdirSync } from 'node:fs';
import t from 'tap';
import { check, ensureBuilt, loginInBrowser, openBrowser, SHOTS, skip } from './browser-kit.js';
import { twoWidgetBoard } from './dashboard-kit.js';

// Moving and resizing widgets on the dashboard page itself, in Chromium against a real control
// plane on real Postgres: "Arrange widgets", then by keyboard (a move onto another widget refused
// and announced, arrow keys moving, Shift and the arrow keys resizing) and by pointer (a drag
// moving, a drag of the corner resizing, snapped to the dashboard's own cells); saved with one
// versioned PUT and read back through the API (ids, titles and options kept); cancelled (nothing
// written); saved against a version changed elsewhere: "changed elsewhere" (409, nothing written),
// reloaded and saved again. axe while arranging, also dark and in Chinese.

t.test('console in Chromium: arranging widgets on the dashboard page', { skip }, async (t) => {
  ensureBuilt();
  mkdirSync(SHOTS, { recursive: true });
  const { url, user, api, board, set } = await twoWidgetBoard(t, 'Arranged board', { columns: 12, row_height_px: 60 });
  const read = async () => (await api('GET', `/v1/dashboards/${board.id}`)).data;

  const { page, problems } = await openBrowser(t);
  await loginInBrowser(page, url, user.email, user.password);
  await page.goto(`${url}/dashboards/${board.id}`);
  await page.getByRole('region', { name: 'Left' }).waitFor({ timeout: 30_000 });
  t.equal(await page.getByRole('button', { name: /^Widget 1:/ }).count(), 0, 'nothing to move before arranging');
  await page.getByRole('button', { name: 'Arrange widgets' }).click();
  const left = page.getByRole('button', { name: /^Widget 1: Left,/ });
  const right = page.getByRole('button', { name: /^Widget 2: Right,/ });
  await left.waitFor({ timeout: 30_000 });
  const said = (text: string) => page.getByRole('status').filter({ hasText: text }).waitFor({ timeout: 30_000 });
  const save = page.getByRole('button', { name: 'Save layout' });
  t.ok(await save.isDisabled(), 'nothing to save before a change');

  // Keyboard: a move onto the other widget is refused and said; down twice, then one wider.
  await left.focus();
  await page.keyboard.press('ArrowRight');
  await said('Widget 1 cannot go there');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Shift+ArrowRight');
  await said('Widget 1: Left, column 0, row 2, 5 wide, 2 high');
  await check(t, page, 'dashboard-arrange');

  // Pointer: the right widget dragged two columns right and one row down, then its corner one cell out.
  const gridBox = (await page.locator('.widget-grid').boundingBox())!;
  const col = (gridBox.width + 12) / 12; // 12 columns and 11 gaps of 12 px, no padding
  const row = 60 + 12;
  const from = (await right.boundingBox())!;
  await page.mouse.move(from.x + 30, from.y + 30);
  await page.mouse.down();
  await page.mouse.move(from.x + 30 + 2 * col, from.y + 30 + row, { steps: 8 });
  await page.mouse.up();
  await page.getByRole('button', { name: 'Widget 2: Right, column 6, row 1, 4 wide, 2 high' }).waitFor({ timeout: 30_000 });
  const corner = (await right.locator('.layout-handle').boundingBox())!;
  await page.mouse.move(corner.x + corner.width / 2, corner.y + corner.height / 2);
  await page.mouse.down();
  await page.mouse.move(corner.x + corner.width / 2 + col, corner.y + corner.height / 2 + row, { steps: 6 });
  await page.mouse.up();
  await page.getByRole('button', { name: 'Widget 2: Right, column 6, row 1, 5 wide, 3 high' }).waitFor({ timeout: 30_000 });
  await page.getByLabel('Theme').selectOption('dark');
  await check(t, page, 'dashboard-arrange-dark');
  await page.getByLabel('Theme').selectOption('system');

  // Saved whole with the version read; read back through the API. The page's reload of the
  // dashboard is held until the page has been looked at: meanwhile it must show the widgets where
  // they were saved, not where the version read before the save had them.
  let release!: () => void;
  const held = new Promise<void>((r) => { release = r; });
  const dashboardRead = (u: URL) => u.pathname === `/v1/dashboards/${board.id}`;
  await page.route(dashboardRead, async (route) => {
    if (route.request().method() === 'GET') await held;
    await route.continue();
  });
  await save.click();
  await said('Layout saved.');
  const saved = await read();
  t.equal(saved.version, set.version + 1, 'one write');
  t.same(saved.widgets.map((w: { position: unknown }) => w.position), [{ x: 0, y: 2, w: 5, h: 2 }, { x: 6, y: 1, w: 5, h: 3 }], 'the new layout through the API');
  t.same(saved.widgets.map((w: { id: string; title: string; options: unknown }) => [w.id, w.title, w.options]),
    set.widgets.map((w: { id: string; title: string; options: unknown }) => [w.id, w.title, w.options]), 'ids, titles and options kept');
  t.equal(await left.count(), 0, 'arranging ended');
  const place = (el: unknown) => { const st = (el as { style: { gridColumn: string; gridRow: string } }).style; return [st.gridColumn, st.gridRow]; };
  t.same(await page.getByRole('region', { name: 'Left' }).evaluate(place), ['1 / span 5', '3 / span 2'], 'the page shows the saved place while its reload is under way');
  release(); // the route lets every later read through at once
  await page.getByRole('region', { name: 'Left' }).waitFor({ timeout: 30_000 });
  t.same(await page.getByRole('region', { name: 'Left' }).evaluate(place), ['1 / span 5', '3 / span 2'], 'and after it');

  // Cancelled: nothing written.
  await page.getByRole('button', { name: 'Arrange widgets' }).click();
  await left.focus();
  await page.keyboard.press('ArrowUp');
  await said('Widget 1: Left, column 0, row 1, 5 wide, 2 high');
  await page.getByRole('button', { name: 'Cancel' }).click();
  await left.waitFor({ state: 'detached', timeout: 30_000 });
  t.equal((await read()).version, saved.version, 'a cancelled arrangement writes nothing');

  // A change made elsewhere: the save is refused (409) and nothing is written; reloaded, it saves.
  await page.getByRole('button', { name: 'Arrange widgets' }).click();
  await api('PATCH', `/v1/dashboards/${board.id}`, { name: 'Renamed elsewhere' });
  await left.focus();
  await page.keyboard.press('ArrowUp');
  await save.click();
  await page.getByText(/changed elsewhere \(it is now at version \d+\)/).waitFor({ timeout: 30_000 });
  t.same((await read()).widgets[0].position, { x: 0, y: 2, w: 5, h: 2 }, 'the stale layout was not written');
  await page.getByRole('button', { name: 'Reload' }).click();
  await page.getByRole('heading', { name: 'Renamed elsewhere', level: 1 }).waitFor({ timeout: 30_000 });
  await page.getByLabel('Language').selectOption('cn');
  await page.getByRole('button', { name: '排列小组件' }).click();
  await page.getByRole('button', { name: /^小组件 1/ }).focus();
  await page.keyboard.press('ArrowUp');
  await check(t, page, 'dashboard-arrange-cn');
  await page.getByRole('button', { name: '保存布局' }).click();
  await page.getByText('布局已保存。').waitFor({ timeout: 30_000 });
  t.same((await read()).widgets[0].position, { x: 0, y: 1, w: 5, h: 2 }, 'saved after the reload');
  await page.getByLabel('语言').selectOption('en');
  t.same(problems.filter((p) => !/status of 409/.test(p)), [], 'no script error or CSP violation (but the conflict the test provoked)');
});
