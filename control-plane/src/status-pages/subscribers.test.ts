import t from 'tap';
import { Webhook } from 'standardwebhooks';
import { eventually, startReceiver } from '../delivery/test-support.js';
import { seedMonitor } from '../checks/test-support.js';
import { startSmtpServer } from '../email/test-support.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { sendMaintenanceNotices } from './maintenance-notices.js';

/*
 * Subscribers through the real delivery engine: an e-mail subscriber confirms the opt-in link
 * received by a real SMTP server on loopback (double opt-in: nothing before), gets incident
 * notices, and leaves with the one-click unsubscribe link; a webhook subscriber's notices are
 * verified with the standardwebhooks library.
 */

const linkIn = (text: string, action: string) => {
  const m = new RegExp(`https?://\\S+/subscribers/${action}\\?\\S+`).exec(text);
  if (!m) throw new Error(`no ${action} link in ${text}`);
  const u = new URL(m[0]);
  return `${u.pathname}${u.search}`;
};

t.test('e-mail (double opt-in) and webhook subscribers get incident notices', async (t) => {
  const smtp = await startSmtpServer(t);
  const { app, sql, deps } = await testApp(t, { config: { smtp_url: smtp.smtp_url, delivery_allow_cidrs: ['127.0.0.0/8'], delivery_poll_interval_ms: 50 }, delivery: true });
  const alice = await registerUser(app);
  const rx = await startReceiver(t);
  const monitor = (await seedMonitor(sql, { user_id: alice.user_id, nodes: 0, state: 'up' })).monitor_id;
  const page = (await call(app, 'POST', '/v1/status-pages', { token: alice.access_token, body: { slug: 'subs', title: 'Subs Inc', components: [{ monitor_id: monitor, display_name: 'Search' }] } })).body.data;
  // Mail to the subscriber only (the account's own verification e-mail goes to the same server).
  const toOps = () => smtp.messages.filter((m) => m.to.includes('ops@example.test'));
  const nthToOps = (n: number) => eventually(`e-mail ${n} to the subscriber`, () => toOps()[n - 1]);

  let r = await call(app, 'POST', '/v1/public/status-pages/subs/subscribers', { body: { email: 'Ops@Example.test' } });
  t.equal(r.status, 202, JSON.stringify(r.body));
  t.match(r.body.data, { kind: 'email', state: 'pending' });
  r = await call(app, 'POST', '/v1/public/status-pages/subs/subscribers', { body: { email: 'ops@example.test', webhook_url: rx.url } });
  t.equal(r.body.error.code, 'VALIDATION_FAILED', 'one of email and webhook_url');
  r = await call(app, 'POST', '/v1/public/status-pages/nope/subscribers', { body: { email: 'a@example.test' } });
  t.equal(r.body.error.code, 'STATUS_PAGE_NOT_FOUND');
  r = await call(app, 'POST', '/v1/public/status-pages/subs/subscribers', { body: { webhook_url: rx.url } });
  t.equal(r.status, 202);
  const hook = r.body.data;
  t.match(hook, { kind: 'webhook', state: 'confirmed', id: /^sps_/, secret: /^whsec_/ });

  // The opt-in e-mail; nothing is sent to the address before it is confirmed.
  const optIn = await nthToOps(1);
  t.match(optIn.parsed.subject, 'Confirm your subscription to Subs Inc');
  const confirm = linkIn(optIn.parsed.text!, 'confirm');
  const shown = await app.request(confirm);
  t.match(await shown.text(), 'Confirm', 'GET shows a button and changes nothing');
  const inc = (await call(app, 'POST', '/v1/incidents', { token: alice.access_token, body: { title: 'Queue backlog', impact: 'major', message: 'Delays of 10 min.', status_page_ids: [page.id] } })).body.data;
  await eventually('the webhook notice', () => rx.received.length >= 1 || null);
  t.equal(toOps().length, 1, 'a pending address gets no notice');
  t.equal((await app.request(confirm.replace(/token=[^&]+/, 'token=forged'), { method: 'POST' })).status, 401, 'a forged link');
  t.equal((await app.request(confirm, { method: 'POST' })).status, 200, 'confirmed');

  // Webhook notice verified with the reference library.
  const verify = (i: number) => {
    const got = rx.received[i]!;
    return new Webhook(hook.secret).verify(got.body, { 'webhook-id': got.headers['webhook-id'] as string, 'webhook-timestamp': got.headers['webhook-timestamp'] as string, 'webhook-signature': got.headers['webhook-signature'] as string }) as any;
  };
  t.match(verify(0), { type: 'incident.created', data: { page: { slug: 'subs', title: 'Subs Inc', url: /\/status\/subs$/ }, incident: { id: inc.id, title: 'Queue backlog', status: 'investigating', impact: 'major' } } });

  // An update reaches both, the e-mail with its unsubscribe link.
  await call(app, 'POST', `/v1/incidents/${inc.id}/updates`, { token: alice.access_token, body: { status: 'resolved', message: 'Caught up.' } });
  const notice = await nthToOps(2);
  t.match(notice.parsed.subject, '[Subs Inc] Resolved: Queue backlog');
  t.match(notice.parsed.text, 'Caught up.');
  await eventually('the second webhook notice', () => rx.received.length >= 2 || null);
  t.match(verify(1), { type: 'incident.updated', data: { incident: { status: 'resolved', updates: [{ message: 'Caught up.' }, { message: 'Delays of 10 min.' }] } } });

  // Maintenance: announced once when its advance notice begins.
  const starts = new Date(Date.now() + 30 * 60_000);
  const mw = await call(app, 'POST', '/v1/maintenance-windows', { token: alice.access_token, body: {
    title: 'Index rebuild', scope_type: 'monitor', scope_ids: [monitor], starts_at: starts.toISOString(), ends_at: new Date(starts.getTime() + 3_600_000).toISOString(), advance_notice_minutes: 60,
  } });
  t.equal(mw.status, 201, JSON.stringify(mw.body));
  t.equal(await sendMaintenanceNotices(deps, new Date(starts.getTime() - 61 * 60_000)), 0, 'before the advance notice: nothing');
  t.equal(await sendMaintenanceNotices(deps, new Date()), 1, 'within it: announced');
  t.equal(await sendMaintenanceNotices(deps, new Date()), 0, 'once');
  const announced = await nthToOps(3);
  t.match(announced.parsed.subject, '[Subs Inc] Scheduled maintenance: Index rebuild');
  t.match(announced.parsed.text, 'Affected: Search.');
  await eventually('the maintenance webhook', () => rx.received.length >= 3 || null);
  t.match(verify(2), { type: 'maintenance.scheduled', data: { page: { slug: 'subs' }, maintenance: { title: 'Index rebuild', starts_at: starts.toISOString(), component_ids: [page.components[0].id] } } });

  // One-click unsubscribe: no more notices to either.
  t.equal((await app.request(linkIn(notice.parsed.text!, 'unsubscribe'), { method: 'POST' })).status, 200);
  t.equal((await app.request(new URL(hook.unsubscribe_url).pathname + new URL(hook.unsubscribe_url).search, { method: 'POST' })).status, 200);
  const queued = async () => (await sql`SELECT count(*)::int AS n FROM deliveries`)[0]!.n as number;
  const before = await queued();
  r = await call(app, 'POST', '/v1/public/status-pages/subs/subscribers', { body: { email: 'ops@example.test' } });
  t.match(r.body.data, { state: 'pending' }, 'the same answer for an unsubscribed address');
  const marker = await call(app, 'POST', '/v1/incidents', { token: alice.access_token, body: { title: 'After', status_page_ids: [page.id] } });
  t.equal(marker.status, 201);
  t.equal(await queued(), before, 'nothing queued: no opt-in e-mail again, no notice after unsubscribing');
});
