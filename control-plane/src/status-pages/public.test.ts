import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import t from 'tap';
import { seedMonitor } from '../checks/test-support.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { historyDates } from './public-view.js';

/*
 * The public page, its JSON and its feed, read from stored round rollups: a component up, one
 * degraded, one down and one in maintenance, each day of the bar checked against the rows written;
 * open and past incidents with a published postmortem (raw HTML shown as text); the page on its
 * custom domain through the Host header; a password page; the cache dropped by API changes.
 */

const DAY_MS = 86_400_000;

t.test('public status page: bars from the stored rollups, incidents, feed, custom domain, password', async (t) => {
  const { app, sql } = await testApp(t);
  const alice = await registerUser(app);
  const monitor = async (state: string) => (await seedMonitor(sql, { user_id: alice.user_id, nodes: 0, state })).monitor_id;
  const [up, degraded, down, maint] = [await monitor('up'), await monitor('degraded'), await monitor('down'), await monitor('maintenance')];
  const now = new Date();
  const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  const hour = (days_ago: number, h: number) => new Date(today - days_ago * DAY_MS + h * 3_600_000);
  // Stored history: two hours a day on some days; day 3 ago the "degraded" monitor had a down hour.
  const rows = [
    { monitor_id: up, hour: hour(1, 0), up_s: 3600 }, { monitor_id: up, hour: hour(1, 1), up_s: 3600 },
    { monitor_id: degraded, hour: hour(1, 0), up_s: 1800, degraded_s: 1800 },
    { monitor_id: degraded, hour: hour(3, 5), up_s: 2700, down_s: 900 },
    { monitor_id: down, hour: hour(0, 0), down_s: 600, up_s: 0 },
    { monitor_id: maint, hour: hour(2, 0), maintenance_s: 3600 },
    { monitor_id: maint, hour: hour(1, 0), no_data_s: 3600 },
  ].map((r) => ({ up_s: 0, degraded_s: 0, down_s: 0, maintenance_s: 0, no_data_s: 0, ...r }));
  await sql`INSERT INTO round_rollups ${sql(rows)}`;

  const components = [{ monitor_id: up, display_name: 'Website' }, { monitor_id: degraded, display_name: 'API' }, { monitor_id: down, display_name: 'Mail' }, { monitor_id: maint, display_name: 'Search' }];
  let r = await call(app, 'POST', '/v1/status-pages', { token: alice.access_token, body: { slug: 'acme', title: 'Acme <status>', custom_domain: 'status.acme.example', history_days: 7, components } });
  t.equal(r.status, 201, JSON.stringify(r.body));
  const page = r.body.data;
  const [website, apiC] = page.components.map((c: { id: string }) => c.id);

  r = await call(app, 'GET', '/v1/public/status-pages/acme');
  t.equal(r.status, 200, JSON.stringify(r.body));
  const view = r.body.data;
  const dates = historyDates(now, 7);
  t.same(view.components.map((c: { days: Array<{ date: string }> }) => c.days.map((d) => d.date)), [dates, dates, dates, dates], 'seven UTC days, today last');
  t.same(view.components.map((c: { state: string }) => c.state), ['up', 'degraded', 'down', 'maintenance'], 'current states');
  t.equal(view.status, 'down', 'the page shows the worst component');
  const day = (c: number, days_ago: number) => view.components[c].days[6 - days_ago];
  t.match(day(0, 1), { level: 'up', uptime_percent: 100, up_s: 7200 }, 'up day from two rollup hours');
  t.match(day(0, 2), { level: 'no_data', uptime_percent: null }, 'a day without rows');
  t.match(day(1, 1), { level: 'degraded', uptime_percent: 100, degraded_s: 1800 });
  t.match(day(1, 3), { level: 'down', uptime_percent: 75, down_s: 900 });
  t.match(day(2, 0), { level: 'down', uptime_percent: 0 });
  t.match(day(3, 2), { level: 'maintenance', maintenance_s: 3600, uptime_percent: null });
  t.match(day(3, 1), { level: 'no_data', no_data_s: 3600 });
  t.equal(view.components[1].uptime_percent, 87.5, 'component uptime over the span');

  // Incidents: an open one and a resolved one with a published postmortem.
  const open = (await call(app, 'POST', '/v1/incidents', { token: alice.access_token, body: { title: 'Mail delays', impact: 'major', message: 'Queues are long.', status_page_ids: [page.id], component_ids: [website] } })).body.data;
  const past = (await call(app, 'POST', '/v1/incidents', { token: alice.access_token, body: { title: 'API errors', message: 'Investigating.', status_page_ids: [page.id], component_ids: [apiC] } })).body.data;
  await call(app, 'POST', `/v1/incidents/${past.id}/updates`, { token: alice.access_token, body: { status: 'resolved', message: 'Rolled back.' } });
  await call(app, 'PUT', `/v1/incidents/${past.id}/postmortem`, { token: alice.access_token, body: { body_md: '## Cause\n<img src=x onerror=alert(1)> [bad](javascript:alert(1))', status: 'published' } });
  r = await call(app, 'GET', '/v1/public/status-pages/acme');
  t.same(r.body.data.active_incidents.map((i: { id: string }) => i.id), [open.id], 'the open incident (the cache was dropped by the change)');
  t.match(r.body.data.past_incidents, [{ id: past.id, status: 'resolved', postmortem_md: /## Cause/, updates: [{ message: 'Rolled back.' }, { message: 'Investigating.' }] }]);

  const res = await app.request('/status/acme');
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /text\/html/);
  t.match(res.headers.get('content-security-policy'), /default-src 'none'/);
  const text = await res.text();
  t.notMatch(text, /<script/i, 'no script');
  t.match(text, 'Acme &lt;status&gt;', 'the title is escaped');
  t.match(text, '<h2>Cause</h2>', 'the postmortem rendered');
  t.notMatch(text, /<img src=x/, 'raw HTML in the postmortem is text');
  t.notMatch(text, /href="javascript:/, 'no javascript: link');
  t.equal((text.match(/class="bar lvl-/g) ?? []).length, 28, 'seven bars per component');
  t.match(text, `data-date="${dates[3]}" data-level="down"`);

  // Encoded once per cache entry: br or gzip as the browser accepts, the same bytes after decoding,
  // and 304 for a browser that already holds this version.
  for (const [accept, coding, decode] of [['gzip, deflate, br, zstd', 'br', brotliDecompressSync], ['gzip;q=1, br;q=0', 'gzip', gunzipSync]] as const) {
    const enc = await app.request('/status/acme', { headers: { 'accept-encoding': accept } });
    t.equal(enc.headers.get('content-encoding'), coding, `Accept-Encoding: ${accept}`);
    t.equal(enc.headers.get('vary'), 'Accept-Encoding');
    t.equal(decode(Buffer.from(await enc.arrayBuffer())).toString('utf8'), text, `${coding} decodes to the page`);
  }
  const etag = res.headers.get('etag');
  t.match(etag, /^"[\w-]+"$/, 'a strong ETag');
  const again = await app.request('/status/acme', { headers: { 'if-none-match': `W/"x", ${etag}` } });
  t.equal(again.status, 304, 'If-None-Match with the current ETag');
  t.equal(await again.text(), '', 'no body');
  t.equal((await app.request('/status/acme', { headers: { 'if-none-match': '"other"' } })).status, 200, 'another ETag: the page');

  const feed = await app.request('/status/acme/feed.atom');
  t.match(feed.headers.get('content-type'), /application\/atom\+xml/);
  const atom = await feed.text();
  t.match(atom, '<feed xmlns="http://www.w3.org/2005/Atom">');
  t.equal((atom.match(/<entry>/g) ?? []).length, 2, 'one entry per incident');
  t.match(atom, `incident/${past.id}</id>`);

  // The custom domain: the same page through the Host header; other hosts go on to other routes.
  const byHost = await app.request('/', { headers: { host: 'status.acme.example:8080' } });
  t.equal(byHost.status, 200);
  t.match(await byHost.text(), 'Mail delays');
  t.match(await (await app.request('/feed.atom', { headers: { host: 'STATUS.acme.example' } })).text(), '<feed');
  t.notMatch(await (await app.request('/', { headers: { host: 'other.example' } })).text(), 'Mail delays', 'an unknown host is not a page');

  r = await call(app, 'GET', '/v1/public/status-pages/nope');
  t.equal(r.status, 404);
  t.equal(r.body.error.code, 'STATUS_PAGE_NOT_FOUND');

  // A password page: the form, then the cookie.
  await call(app, 'PATCH', `/v1/status-pages/${page.id}`, { token: alice.access_token, body: { is_public: false, password: 'correct horse' } });
  r = await call(app, 'GET', '/v1/public/status-pages/acme');
  t.equal(r.status, 401, 'JSON without the cookie');
  let html = await (await app.request('/status/acme')).text();
  t.match(html, 'type="password"');
  t.notMatch(html, 'Mail delays', 'nothing of the page shows');
  const form = (password: string) => app.request('/status/acme', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `password=${encodeURIComponent(password)}` });
  t.equal((await form('wrong horse')).status, 401);
  const right = await form('correct horse');
  t.equal(right.status, 303);
  const cookie = right.headers.get('set-cookie')!.split(';')[0]!;
  html = await (await app.request('/status/acme', { headers: { cookie } })).text();
  t.match(html, 'Mail delays', 'the cookie admits');
  t.equal((await call(app, 'GET', '/v1/public/status-pages/acme', { headers: { cookie } })).status, 200);

  await call(app, 'DELETE', `/v1/status-pages/${page.id}`, { token: alice.access_token });
  t.equal((await app.request('/status/acme')).status, 404, 'deleted: gone at once');
  const browser404 = await app.request('/status/acme', { headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } });
  t.equal(browser404.status, 404, 'a browser: 404');
  t.match(browser404.headers.get('content-type'), /text\/html/);
  t.match(await browser404.text(), '<h1>No status page here</h1>', 'a page that says so');
  const api404 = await app.request('/status/acme', { headers: { accept: 'application/json' } });
  t.match(await api404.json(), { error: { code: 'STATUS_PAGE_NOT_FOUND' } }, 'an API client: the envelope');
});
