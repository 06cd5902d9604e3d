import { existsSync } from 'node:fs';
import t from 'tap';
import { chromium } from 'playwright-core';
import { seedMonitor } from '../checks/test-support.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { historyDates } from './public-view.js';

/*
 * The public status page in a real Chromium with JavaScript turned off: components up, degraded,
 * down and in maintenance, each bar checked against the rollup rows this test stored, the active
 * incident and the scheduled maintenance shown, the Atom feed; and the page reached on its custom
 * domain (Chromium resolves the name to 127.0.0.1, so the request carries that Host header).
 */

/** The Chromium the tests drive (VANTAGE_CHROMIUM, default Debian's /usr/bin/chromium). */
const CHROMIUM_PATH = process.env.VANTAGE_CHROMIUM ?? '/usr/bin/chromium';
const skip = existsSync(CHROMIUM_PATH) ? false : `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set VANTAGE_CHROMIUM)`;
const DAY_MS = 86_400_000;
const DOMAIN = 'status.browser-test.example';

t.test('the page in Chromium without JavaScript, and on its custom domain', { skip }, async (t) => {
  const { app, sql, url } = await testApp(t);
  const port = new URL(url).port;
  const alice = await registerUser(app);
  const states = ['up', 'degraded', 'down', 'maintenance'] as const;
  const monitors: string[] = [];
  for (const state of states) monitors.push((await seedMonitor(sql, { user_id: alice.user_id, nodes: 0, state })).monitor_id);
  const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
  // The stored history: per monitor, the seconds of its state on the last three days (two days ago with nothing for "up").
  const history: Array<{ monitor_id: string; days_ago: number; level: string; row: Record<string, number> }> = [
    { monitor_id: monitors[0]!, days_ago: 0, level: 'up', row: { up_s: 3600 } },
    { monitor_id: monitors[0]!, days_ago: 1, level: 'up', row: { up_s: 3600 } },
    { monitor_id: monitors[1]!, days_ago: 0, level: 'degraded', row: { up_s: 1800, degraded_s: 1800 } },
    { monitor_id: monitors[1]!, days_ago: 2, level: 'up', row: { up_s: 3600 } },
    { monitor_id: monitors[2]!, days_ago: 0, level: 'down', row: { down_s: 3600 } },
    { monitor_id: monitors[2]!, days_ago: 1, level: 'down', row: { up_s: 3000, down_s: 600 } },
    { monitor_id: monitors[3]!, days_ago: 0, level: 'maintenance', row: { maintenance_s: 3600 } },
    { monitor_id: monitors[3]!, days_ago: 2, level: 'no_data', row: { no_data_s: 3600 } },
  ];
  await sql`INSERT INTO round_rollups ${sql(history.map((h) => ({ monitor_id: h.monitor_id, hour: new Date(today - h.days_ago * DAY_MS), up_s: 0, degraded_s: 0, down_s: 0, maintenance_s: 0, no_data_s: 0, ...h.row })))}`;
  const components = states.map((s, i) => ({ monitor_id: monitors[i]!, display_name: `Service ${s}` }));
  const page = (await call(app, 'POST', '/v1/status-pages', { token: alice.access_token, body: { slug: 'browser', title: 'Browser status', custom_domain: DOMAIN, history_days: 30, components } })).body.data;
  await call(app, 'POST', '/v1/incidents', { token: alice.access_token, body: { title: 'Payments failing', impact: 'critical', message: 'We see errors.', status_page_ids: [page.id], component_ids: [page.components[2].id] } });
  const soon = new Date(Date.now() + 3_600_000);
  const mw = await call(app, 'POST', '/v1/maintenance-windows', { token: alice.access_token, body: { title: 'Database upgrade', scope_type: 'monitor', scope_ids: [monitors[3]], starts_at: soon.toISOString(), ends_at: new Date(soon.getTime() + 3_600_000).toISOString() } });
  t.equal(mw.status, 201, JSON.stringify(mw.body));

  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH, headless: true,
    args: ['--disable-gpu', '--no-first-run', '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync', `--host-resolver-rules=MAP ${DOMAIN} 127.0.0.1`],
  });
  t.teardown(() => browser.close());
  const context = await browser.newContext({ javaScriptEnabled: false });
  const tab = await context.newPage();

  const res = await tab.goto(`${url}/status/browser`);
  t.equal(res?.status(), 200);
  t.equal(await tab.title(), 'Browser status');
  t.equal(await tab.locator('[data-page-status]').getAttribute('data-page-status'), 'down', 'the worst component');
  t.equal(await tab.locator('.summary').innerText(), 'Outage in progress');
  const shown = await tab.locator('section.component').evaluateAll((els) => els.map((el) => ({
    state: el.getAttribute('data-state'), name: el.querySelector('h3 span')!.textContent,
    bars: [...el.querySelectorAll('.bar')].map((b) => ({ date: b.getAttribute('data-date'), level: b.getAttribute('data-level'), title: b.getAttribute('title') })),
  })));
  t.same(shown.map((c) => c.state), [...states], 'each component\'s current state');
  t.same(shown.map((c) => c.name), states.map((s) => `Service ${s}`));
  const dates = historyDates(new Date(), 30);
  for (const [i, c] of shown.entries()) {
    t.same(c.bars.map((b) => b.date), dates, `${c.name}: 30 days, today last`);
    for (const [k, b] of c.bars.entries()) {
      const stored = history.find((h) => h.monitor_id === monitors[i] && dates[29 - h.days_ago] === dates[k]);
      if (b.level !== (stored?.level ?? 'no_data')) t.fail(`${c.name} ${b.date}: shows ${b.level}, stored ${stored?.level ?? 'nothing'}`);
    }
  }
  t.pass('every bar matches the stored history');
  t.match(shown[2]!.bars[28]!.title, '83.333% uptime', 'a bar says its uptime');
  // Visible colours come from the style sheet without any script.
  const colours = await tab.locator('section.component').first().locator('.bar').last().evaluate((el) => (globalThis as any).getComputedStyle(el).backgroundColor as string);
  t.equal(colours, 'rgb(46, 158, 91)', 'an up day is green');
  const text = await tab.locator('main').innerText();
  t.match(text, 'Payments failing');
  t.match(text, 'We see errors.');
  t.match(text, /Scheduled maintenance\s+Database upgrade/);
  t.match(text, 'No incidents in the last 30 days.');

  const feed = await tab.goto(`${url}/status/browser/feed.atom`);
  t.match(feed?.headers()['content-type'], /application\/atom\+xml/);
  const atom = await feed!.text();
  t.match(atom, '<title>Payments failing (investigating)</title>');

  // The custom domain: Chromium resolves it to loopback and sends Host: status.browser-test.example.
  const onDomain = await tab.goto(`http://${DOMAIN}:${port}/`);
  t.equal(onDomain?.status(), 200);
  t.equal(await tab.title(), 'Browser status', 'the page on its own domain');
  t.equal(await tab.locator('section.component').count(), 4);
  t.equal((await tab.goto(`http://${DOMAIN}:${port}/feed.atom`))?.status(), 200, 'and its feed');
});
