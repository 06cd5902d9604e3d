import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync } from 'node:fs';
import t from 'tap';
import { alertEnginePass } from '../../control-plane/src/alerting/engine.js';
import { waitFor } from '../../control-plane/src/hub/test-harness.js';
import { call, registerUser, testApp } from '../../control-plane/src/test-support/app.js';
import { check, DIST, ensureBuilt, LOOPBACK, loginInBrowser, openBrowser, SHOTS, skip } from './browser-kit.js';

// The alerting and webhook pages of the console in Chromium against a real control plane (with
// its delivery worker) on real Postgres, and a receiver on loopback: a webhook channel made and
// test-sent from the page, a policy with an escalation level (then edited), an alert group, an alert event (opened by the real
// alert engine from a down round) acknowledged and resolved through the page and read back through
// the API, a silence, a maintenance window on the calendar, a webhook endpoint with its test ping
// delivered and redelivered. axe-core on every page; screenshots to .tap/console/.

t.test('console in Chromium: channels, policies, alert events, silences, groups, maintenance, webhooks', { skip }, async (t) => {
  ensureBuilt();
  mkdirSync(SHOTS, { recursive: true });
  const { app, deps, sql, url } = await testApp(t, { config: { console_dir: DIST, delivery_allow_cidrs: LOOPBACK }, delivery: true });
  const received: Array<{ path: string; headers: IncomingHttpHeaders; body: string }> = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => { body += c; });
    req.on('end', () => { received.push({ path: req.url ?? '', headers: req.headers, body }); res.end('ok'); });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

  const user = await registerUser(app);
  const monitor = await call(app, 'POST', '/v1/monitors', { token: user.access_token, body: { name: 'Example site', type: 'http', target: 'https://1.1.1.1/' } });
  t.equal(monitor.status, 201, 'monitor created');
  const monitor_id: string = monitor.body.data.id;
  const { page, problems } = await openBrowser(t);
  await loginInBrowser(page, url, user.email, user.password);

  // Alerts, empty: it says what to do next.
  await page.getByRole('link', { name: 'Alerting', exact: true }).click();
  await page.getByText('No alerts.').waitFor({ timeout: 30_000 });
  await check(t, page, 'alerts-empty');

  // Channels: a signed webhook channel to the receiver, its secret once, a test send delivered.
  await page.getByRole('link', { name: 'Channels', exact: true }).click();
  await page.getByText('No channels yet.').waitFor({ timeout: 30_000 });
  await page.getByLabel('Channel name').fill('Ops hook');
  await page.getByLabel('Type').selectOption('webhook');
  await page.getByLabel('URL', { exact: true }).fill(`${hook}/channel`);
  await page.getByRole('button', { name: 'Create channel' }).click();
  t.match(await page.getByTestId('channel-secret').textContent({ timeout: 30_000 }), /^whsec_/, 'the signing secret is shown once');
  await page.getByRole('button', { name: 'Send test to Ops hook' }).click();
  await page.getByText('Test sent to Ops hook: delivered.').waitFor({ timeout: 60_000 });
  t.ok(received.some((r) => r.path === '/channel' && r.headers['webhook-signature'] && JSON.parse(r.body).type === 'alert.test'), 'the receiver got the signed test');
  await page.getByRole('cell', { name: 'Yes', exact: true }).waitFor({ timeout: 30_000 });
  await check(t, page, 'alert-channels');

  // Policies: first the channel, then one escalation level after 10 minutes.
  await page.getByRole('link', { name: 'Policies', exact: true }).click();
  await page.getByText('No policies yet.').waitFor({ timeout: 30_000 });
  await page.getByLabel('Policy name').fill('On call');
  await page.getByLabel('Monitor', { exact: true }).selectOption({ label: 'Example site' });
  await page.getByLabel('Ops hook').check();
  await page.getByRole('button', { name: 'Add escalation level' }).click();
  await page.getByLabel('Level 1: wait (s)').fill('600');
  await page.getByLabel('Level 1: channel').selectOption({ label: 'Ops hook' });
  await page.getByRole('button', { name: 'Create policy' }).click();
  await page.getByText('after 600 s: Ops hook').waitFor({ timeout: 30_000 });
  await check(t, page, 'alert-policies');
  const policies = await call(app, 'GET', '/v1/alert-policies', { token: user.access_token });
  t.match(policies.body.data.items, [{ name: 'On call', monitor_id, escalation_levels: [{ level_index: 1, after_seconds: 600 }] }], 'the API has the policy and its level');
  // Edit it: a 2-minute delay; the levels, untouched, stay as they were.
  await page.getByRole('button', { name: 'Edit policy On call' }).click();
  await page.getByLabel('Delay (s)').fill('120');
  await page.getByRole('button', { name: 'Save policy' }).click();
  await page.getByRole('heading', { name: 'New policy' }).waitFor({ timeout: 30_000 });
  const edited = await call(app, 'GET', '/v1/alert-policies', { token: user.access_token });
  t.match(edited.body.data.items, [{ name: 'On call', delay_s: 120, escalation_levels: [{ level_index: 1, after_seconds: 600 }] }], 'the edit is saved, the levels kept');

  // The monitor goes down (a judged round) and the alert engine opens an event.
  const now = new Date();
  await sql`
    INSERT INTO check_rounds (scheduled_at, deadline_at, decided_at, monitor_id, interval_s, expected, reported, failed, verdict, dirty)
    VALUES (${now}, ${now}, ${now}, ${monitor_id}, 60, 1, 1, 1, 'down', false)`;
  await sql`UPDATE monitors SET state = 'down', state_changed_at = ${now} WHERE id = ${monitor_id}`;
  await alertEnginePass({ sql, config: deps.config, events: deps.events }, new Date());
  const [event] = await sql<Array<{ id: string }>>`SELECT id FROM alert_events WHERE monitor_id = ${monitor_id}`;
  t.ok(event, 'the engine opened an alert event');

  // Acknowledge and resolve through the page; the API reads what the page did.
  await page.getByRole('link', { name: 'Alerts', exact: true }).click();
  const row = page.locator(`tr[data-event="${event!.id}"]`);
  await row.getByText('Firing').waitFor({ timeout: 30_000 });
  await row.getByRole('link', { name: 'Example site' }).waitFor({ timeout: 30_000 });
  await check(t, page, 'alerts-firing');
  await row.getByRole('button', { name: 'Acknowledge' }).click();
  await row.getByText('Acknowledged', { exact: true }).waitFor({ timeout: 30_000 });
  const acked = await call(app, 'GET', `/v1/alert-events/${event!.id}`, { token: user.access_token });
  t.match(acked.body.data, { status: 'acknowledged', acknowledged_by: user.user_id }, 'the API sees the event acknowledged by the user');
  await check(t, page, 'alerts-acknowledged');
  await row.getByRole('button', { name: 'Resolve' }).click();
  await row.getByText('Resolved', { exact: true }).waitFor({ timeout: 30_000 });
  const resolved = await call(app, 'GET', `/v1/alert-events/${event!.id}`, { token: user.access_token });
  t.match(resolved.body.data, { status: 'resolved', resolved_by: user.user_id }, 'the API sees the event resolved by the user');

  // Silences: one for all monitors from now for an hour, then ended.
  await page.getByRole('link', { name: 'Silences', exact: true }).click();
  await page.getByText('No silences.').waitFor({ timeout: 30_000 });
  await page.getByLabel('Reason').fill('deploy');
  await page.getByRole('button', { name: 'Create silence' }).click();
  await page.getByRole('cell', { name: 'Active', exact: true }).waitFor({ timeout: 30_000 });
  await check(t, page, 'alert-silences');
  await page.getByRole('button', { name: 'End now' }).click();
  await page.getByRole('cell', { name: 'Expired', exact: true }).waitFor({ timeout: 30_000 });

  // Alert groups: the alerts of monitors tagged edge, gathered for a minute.
  await page.getByRole('link', { name: 'Groups', exact: true }).click();
  await page.getByText('No alert groups.').waitFor({ timeout: 30_000 });
  await page.getByLabel('Group name').fill('Edge');
  await page.getByLabel('Match monitors by').selectOption('tag');
  await page.getByLabel('Value').fill('edge');
  await page.getByRole('button', { name: 'Create group' }).click();
  await page.getByRole('cell', { name: 'Edge', exact: true }).waitFor({ timeout: 30_000 });
  await check(t, page, 'alert-groups');
  const groups = await call(app, 'GET', '/v1/alert-groups', { token: user.access_token });
  t.match(groups.body.data.items, [{ name: 'Edge', group_by: 'tag', group_value: 'edge', wait_seconds: 60 }], 'the API has the group');

  // Maintenance: a weekly window from tomorrow, listed and on the calendar.
  await page.getByRole('link', { name: 'Maintenance', exact: true }).click();
  await page.getByText('No maintenance windows.').waitFor({ timeout: 30_000 });
  await page.getByLabel('Title').fill('DB upgrade');
  await page.getByLabel('Repeats').selectOption('weekly');
  await page.getByRole('button', { name: 'Create window' }).click();
  await page.getByRole('cell', { name: 'DB upgrade', exact: true }).waitFor({ timeout: 30_000 });
  t.ok(await page.locator('.calendar li', { hasText: 'DB upgrade' }).count() >= 3, 'the weekly window is on the calendar in each coming week');
  await check(t, page, 'maintenance');
  const windows = await call(app, 'GET', '/v1/maintenance-windows', { token: user.access_token });
  t.match(windows.body.data.items, [{ title: 'DB upgrade', scope_type: 'all', recurrence: 'weekly' }]);

  // Webhook endpoints: one for alert events, its secret once; a test ping delivered, then redelivered.
  await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
  await page.getByText('No endpoints yet.').waitFor({ timeout: 30_000 });
  await page.getByLabel('URL', { exact: true }).fill(`${hook}/endpoint`);
  await page.getByLabel('alert.firing').check();
  await page.getByRole('button', { name: 'Create endpoint' }).click();
  t.match(await page.getByTestId('webhook-secret').textContent({ timeout: 30_000 }), /^whsec_/, 'the endpoint secret is shown once');
  await check(t, page, 'webhooks');
  await page.getByRole('link', { name: `${hook}/endpoint` }).click();
  await page.getByText('No deliveries yet.').waitFor({ timeout: 30_000 });
  await check(t, page, 'webhook-deliveries-empty');
  await page.getByRole('button', { name: 'Send test ping' }).click();
  await page.getByText('Test ping queued.').waitFor({ timeout: 30_000 });
  const delivered = async (attempts: number) => {
    const deadline = Date.now() + 60_000;
    while (await page.getByText(`${attempts} attempts`).count() === 0 || await page.locator('td .badge', { hasText: 'Succeeded' }).count() === 0) {
      if (Date.now() > deadline) throw new Error(`not delivered; the page says: ${await page.locator('main').innerText()}`);
      await page.getByRole('button', { name: 'Refresh' }).click();
      await page.waitForTimeout(500);
    }
  };
  await delivered(1);
  await page.getByRole('button', { name: 'Redeliver webhook.ping' }).click();
  await page.getByText('Sent again.').waitFor({ timeout: 30_000 });
  await delivered(2);
  await page.getByText('2 attempts').click();
  await check(t, page, 'webhook-deliveries');
  await waitFor(async () => received.filter((r) => r.path === '/endpoint').length >= 2);
  const pings = received.filter((r) => r.path === '/endpoint');
  t.equal(pings[0]!.headers['webhook-id'], pings[1]!.headers['webhook-id'], 'the redelivery carries the same webhook-id');

  // The alerts page in traditional Chinese and the dark theme (axe checks the contrast of its badges too).
  await page.getByRole('link', { name: 'Alerting', exact: true }).click();
  await page.locator('td .badge', { hasText: 'Resolved' }).waitFor({ timeout: 30_000 });
  await page.getByLabel('Theme').selectOption('dark');
  await page.getByLabel('Language').selectOption('tw');
  await page.getByRole('heading', { name: '告警事件' }).waitFor({ timeout: 30_000 });
  await page.locator('td .badge', { hasText: '已解決' }).waitFor({ timeout: 30_000 });
  await check(t, page, 'alerts-tw-dark');
  t.same(problems, [], 'no script errors or CSP violations');
});
