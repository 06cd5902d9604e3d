import t from 'tap';
import { call, createApiKey, registerUser, testApp } from '../test-support/app.js';
import { deductReportCredit } from './payment-api.js';

const HTTPS = { type: 'https', target: 'https://1.1.1.1/health' };

t.test('free plan quotas at their edges; entitlements raise them; manual subscription through its statuses', async (t) => {
  const { app, sql } = await testApp(t, {
    config: { plan: 'free', billing_plan_quotas: { free: { api_calls_per_day: 3, monitors: 2 } } },
  });
  const admin = await registerUser(app, 'root@example.test');
  const u = await registerUser(app, 'alice@example.test');
  const token = u.access_token;

  // Status pages: free allows 1.
  t.equal((await call(app, 'POST', '/v1/status-pages', { token, body: { slug: 'one-page', title: 'One' } })).status, 201);
  const sp = await call(app, 'POST', '/v1/status-pages', { token, body: { slug: 'two-page', title: 'Two' } });
  t.equal(sp.status, 429);
  t.equal(sp.body.error.code, 'QUOTA_EXCEEDED');
  t.match(sp.body.error.details, { quota: 'status_pages', plan: 'free', limit: 1, used: 1 });
  t.equal(sp.headers.get('x-ratelimit-limit'), '1');
  t.equal(Number((await sql`SELECT count(*)::int AS n FROM status_pages`)[0]!.n), 1, 'nothing created');

  // MCP tokens: free allows 2.
  for (const name of ['a', 'b']) t.equal((await call(app, 'POST', '/v1/mcp/tokens', { token, body: { type: 'personal', name, auto_renew: false } })).status, 201);
  const mt = await call(app, 'POST', '/v1/mcp/tokens', { token, body: { type: 'personal', name: 'c', auto_renew: false } });
  t.match(mt.body.error, { code: 'QUOTA_EXCEEDED', details: { quota: 'mcp_tokens', limit: 2, used: 2 } });

  // Monitors: the operator set free to 2; min interval 300 s on free.
  const fast = await call(app, 'POST', '/v1/monitors', { token, body: { ...HTTPS, name: 'fast', interval_s: 60 } });
  t.equal(fast.status, 403);
  t.match(fast.body.error, { code: 'FEATURE_LOCKED', details: { quota: 'min_interval_s', plan: 'free', limit: 300, used: 60 } });
  t.equal((await call(app, 'POST', '/v1/monitors', { token, body: { ...HTTPS, name: 'm1' } })).status, 201);
  t.equal((await call(app, 'POST', '/v1/monitors', { token, body: { ...HTTPS, name: 'm2' } })).status, 201);
  const m3 = await call(app, 'POST', '/v1/monitors', { token, body: { ...HTTPS, name: 'm3' } });
  t.match(m3.body.error, { code: 'MONITOR_LIMIT_EXCEEDED', details: { quota: 'monitors', plan: 'free', used: 2, max: 2 } });

  // An entitlement raises the monitors quota by one; revoking it takes it back.
  const grant = await call(app, 'POST', '/v1/admin/entitlements', { token: admin.access_token, body: { user_id: u.user_id, kind: 'quota_override', attrs: { monitors: 1 } } });
  t.equal(grant.status, 201);
  t.match(grant.body.data, { id: /^etl_/, kind: 'quota_override', status: 'active' });
  t.equal((await call(app, 'POST', '/v1/admin/entitlements', { token, body: { user_id: u.user_id, kind: 'api_pack', balance: 5 } })).status, 403, 'not an admin');
  t.equal((await call(app, 'POST', '/v1/monitors', { token, body: { ...HTTPS, name: 'm3' } })).status, 201);
  t.equal((await call(app, 'POST', '/v1/monitors', { token, body: { ...HTTPS, name: 'm4' } })).status, 422);
  t.equal((await call(app, 'DELETE', `/v1/admin/entitlements/${grant.body.data.id}`, { token: admin.access_token })).status, 200);
  t.equal((await call(app, 'DELETE', `/v1/admin/entitlements/${grant.body.data.id}`, { token: admin.access_token })).status, 409, 'revoked already');
  const mine = await call(app, 'GET', '/v1/entitlements', { token });
  t.match(mine.body.data, [{ status: 'revoked' }]);

  // API calls per day with a key: 3 allowed, then 429 with Retry-After; an api_pack gives 1 more.
  const key = await createApiKey(app, token, ['read']);
  for (let i = 1; i <= 3; i++) t.equal((await call(app, 'GET', '/v1/monitors', { token: key.key })).status, 200, `call ${i}`);
  const over = await call(app, 'GET', '/v1/monitors', { token: key.key });
  t.equal(over.status, 429);
  t.match(over.body.error, { code: 'QUOTA_EXCEEDED', details: { quota: 'api_calls_per_day', limit: 3, used: 4 } });
  t.ok(Number(over.headers.get('retry-after')) >= 1);
  await call(app, 'POST', '/v1/admin/entitlements', { token: admin.access_token, body: { user_id: u.user_id, kind: 'api_pack', balance: 1 } });
  t.equal((await call(app, 'GET', '/v1/monitors', { token: key.key })).status, 200, 'a pack call');
  t.equal((await call(app, 'GET', '/v1/monitors', { token: key.key })).status, 429, 'pack used up');

  // Report credits: deducted one at a time, null when none is left.
  t.equal(await sql.begin((tx) => deductReportCredit(tx, u.user_id)), null);
  const pack = await call(app, 'POST', '/v1/admin/entitlements', { token: admin.access_token, body: { user_id: u.user_id, kind: 'report_pack', balance: 2 } });
  t.same(await sql.begin((tx) => deductReportCredit(tx, u.user_id)), { entitlement_id: pack.body.data.id, balance: 1 });
  t.same(await sql.begin((tx) => deductReportCredit(tx, u.user_id)), { entitlement_id: pack.body.data.id, balance: 0 });
  t.equal(await sql.begin((tx) => deductReportCredit(tx, u.user_id)), null);

  // Subscription (manual provider): none → incomplete → active (admin marks paid) → canceled.
  t.match((await call(app, 'GET', '/v1/billing/subscription', { token })).body.data, { plan: 'free', status: 'none', current_period_end: null });
  const bad = await call(app, 'POST', '/v1/billing/subscribe', { token, body: { plan: 'gold' } });
  t.equal(bad.status, 404);
  t.equal(bad.body.error.code, 'BILLING_PLAN_NOT_FOUND');
  const sub = await call(app, 'POST', '/v1/billing/subscribe', { token, body: { plan: 'pro' } });
  t.equal(sub.status, 200);
  t.match(sub.body.data.checkout_url, /\/billing\/invoices\/bi_/);
  t.match((await call(app, 'GET', '/v1/billing/subscription', { token })).body.data, { plan: 'free', status: 'incomplete' });
  const invoices = (await call(app, 'GET', '/v1/billing/invoices', { token })).body.data.items;
  t.equal(invoices.length, 1);
  t.match(invoices[0], { id: /^bi_/, amount: 1900, currency: 'usd', status: 'open' });
  const other = await registerUser(app, 'bob@example.test');
  t.equal((await call(app, 'GET', `/v1/billing/invoices/${invoices[0].id}`, { token: other.access_token })).body.error.code, 'BILLING_INVOICE_NOT_FOUND', 'another account: 404');
  t.equal((await call(app, 'POST', `/v1/admin/billing/invoices/${invoices[0].id}/mark-paid`, { token })).status, 403);
  const paid = await call(app, 'POST', `/v1/admin/billing/invoices/${invoices[0].id}/mark-paid`, { token: admin.access_token });
  t.equal(paid.status, 200);
  t.equal(paid.body.data.status, 'paid');
  t.equal((await call(app, 'POST', `/v1/admin/billing/invoices/${invoices[0].id}/mark-paid`, { token: admin.access_token })).status, 409, 'paid once');
  const active = (await call(app, 'GET', '/v1/billing/subscription', { token })).body.data;
  t.match(active, { plan: 'pro', status: 'active', subscribed_plan: 'pro' });
  t.ok(Date.parse(active.current_period_end) > Date.now() + 29 * 86_400_000);
  t.equal((await call(app, 'POST', '/v1/billing/subscribe', { token, body: { plan: 'business' } })).status, 409, 'already subscribed');
  t.equal((await call(app, 'POST', '/v1/status-pages', { token, body: { slug: 'two-page', title: 'Two' } })).status, 201, 'pro allows more status pages');
  const usage = (await call(app, 'GET', '/v1/billing/usage', { token })).body.data;
  t.match(usage, { plan: 'pro', quotas: { status_pages: 10 }, used: { status_pages: 2, monitors: 3 } });
  t.same(usage.used.api_calls_by_key, [{ key_id: key.id, calls: 6 }], 'the key\'s calls today, refused ones included');
  t.equal(usage.used.api_calls_today, 6);
  const canceled = (await call(app, 'POST', '/v1/billing/subscription/cancel', { token })).body.data;
  t.match(canceled, { status: 'canceled', plan: 'pro' }, 'the paid period is kept');
  await sql`UPDATE billing_subscriptions SET current_period_end = now() - interval '1 second' WHERE user_id = ${u.user_id}`;
  t.match((await call(app, 'GET', '/v1/billing/subscription', { token })).body.data, { status: 'expired', plan: 'free' });
  const audit = await sql`SELECT action FROM admin_audit WHERE action LIKE 'entitlement.%' OR action LIKE 'invoice.%' ORDER BY id`;
  t.same(audit.map((a) => a.action), ['entitlement.grant', 'entitlement.revoke', 'entitlement.grant', 'entitlement.grant', 'invoice.mark_paid']);
});
