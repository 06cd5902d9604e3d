import t from 'tap';
import { call, registerUser, testApp } from '../test-support/app.js';

/*
 * The account plan's quotas wherever monitors are created (docs/api/billing.md "Plans and
 * quotas"), at their edges: an import and an agent-obs monitor count toward `monitors` like a
 * create; an import is held to `min_interval_s`; `node_count` follows the account's plan (a
 * subscription to pro raises the free deployment's maximum); a team's monitors follow the
 * deployment's limits. Refusals create nothing.
 */

const HTTPS = { type: 'https', target: 'https://1.1.1.1/health' };

t.test('monitors quota and min interval through import and agent-obs; node_count of the account plan', async (t) => {
  const { app, sql } = await testApp(t, {
    config: { plan: 'free', probe_allow_cidrs: ['127.0.0.0/8'], billing_plan_quotas: { free: { monitors: 3 }, pro: { node_count: 7 } } },
  });
  const admin = await registerUser(app, 'root@example.test');
  const u = await registerUser(app, 'edges@example.test');
  const token = u.access_token;
  const count = async () => (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM monitors WHERE user_id = ${u.user_id}`)[0]!.n;

  // Import: the interval edge (300 s on free) per item, then the monitors quota (3) in request order.
  const imported = await call(app, 'POST', '/v1/monitors/import', { token, body: { monitors: [
    { ...HTTPS, name: 'i-fast', interval_s: 60 },
    { ...HTTPS, name: 'i-1', interval_s: 300 },
    { ...HTTPS, name: 'i-2', interval_s: 300 },
  ] } });
  t.equal(imported.status, 200, JSON.stringify(imported.body));
  const items = imported.body.data.items;
  t.match(items[0], { status: 'failed', error: { code: 'FEATURE_LOCKED', details: { quota: 'min_interval_s', plan: 'free', limit: 300, used: 60 } } });
  t.match(items.slice(1), [{ status: 'created' }, { status: 'created' }], 'an interval at the plan\'s minimum is accepted');
  t.equal(await count(), 2);

  // Agent-obs: the backing monitor is the third monitor (the edge), a fourth is refused.
  const agent = (name: string) => call(app, 'POST', '/v1/agent-obs/monitors', { token, body: {
    agent_name: name, type: 'tool', endpoint_url: 'http://127.0.0.1:9/tool', frequency_seconds: 10, failure_threshold: {},
  } });
  t.equal((await agent('third')).status, 201, 'the third monitor of three');
  const fourth = await agent('fourth');
  t.equal(fourth.status, 422);
  t.match(fourth.body.error, { code: 'MONITOR_LIMIT_EXCEEDED', details: { quota: 'monitors', plan: 'free', used: 3, max: 3 } });
  t.equal((await sql`SELECT count(*)::int AS n FROM agent_obs_monitors`)[0]!.n, 1, 'nothing created');
  const more = await call(app, 'POST', '/v1/monitors/import', { token, body: { monitors: [{ ...HTTPS, name: 'i-3' }] } });
  t.match(more.body.data.items[0], { status: 'failed', error: { code: 'MONITOR_LIMIT_EXCEEDED', details: { quota: 'monitors', plan: 'free', used: 3, max: 3 } } });
  t.equal(await count(), 3);

  // node_count: free allows 5 per monitor (its edge), 6 is refused naming the plan.
  await sql`DELETE FROM agent_obs_monitors`;
  await sql`DELETE FROM monitors WHERE user_id = ${u.user_id}`;
  t.equal((await call(app, 'POST', '/v1/monitors', { token, body: { ...HTTPS, name: 'n5', node_count: 5 } })).status, 201, 'node_count 5 on free');
  const six = await call(app, 'POST', '/v1/monitors', { token, body: { ...HTTPS, name: 'n6', node_count: 6 } });
  t.equal(six.status, 422);
  t.match(six.body.error, { code: 'MONITOR_LIMIT_EXCEEDED', details: { limit: 'node_count', quota: 'node_count', plan: 'free', max: 5, used: 6 } });

  // Subscribed to pro (the operator set pro's node_count to 7): 7 is the new edge, 8 is refused.
  const sub = await call(app, 'POST', '/v1/billing/subscribe', { token, body: { plan: 'pro' } });
  t.equal(sub.status, 200);
  const [inv] = (await call(app, 'GET', '/v1/billing/invoices', { token })).body.data.items;
  t.equal((await call(app, 'POST', `/v1/admin/billing/invoices/${inv.id}/mark-paid`, { token: admin.access_token })).status, 200);
  t.equal((await call(app, 'POST', '/v1/monitors', { token, body: { ...HTTPS, name: 'n7', node_count: 7 } })).status, 201, 'node_count 7 on pro');
  const eight = await call(app, 'POST', '/v1/monitors', { token, body: { ...HTTPS, name: 'n8', node_count: 8 } });
  t.match(eight.body.error, { code: 'MONITOR_LIMIT_EXCEEDED', details: { plan: 'pro', max: 7, used: 8 } });
  const imp8 = await call(app, 'POST', '/v1/monitors/import', { token, body: { monitors: [{ ...HTTPS, name: 'i8', node_count: 8 }] } });
  t.match(imp8.body.data.items[0], { status: 'failed', error: { code: 'MONITOR_LIMIT_EXCEEDED', details: { plan: 'pro', max: 7 } } }, 'import checks the same');
  t.equal((await call(app, 'POST', '/v1/monitors', { token, body: { ...HTTPS, name: 'fast', interval_s: 60 } })).status, 201, 'pro allows 60 s');
  // An entitlement adds to the node_count quota too.
  await call(app, 'POST', '/v1/admin/entitlements', { token: admin.access_token, body: { user_id: u.user_id, kind: 'quota_override', attrs: { node_count: 1 } } });
  t.equal((await call(app, 'POST', '/v1/monitors', { token, body: { ...HTTPS, name: 'n8', node_count: 8 } })).status, 201, 'quota_override node_count +1');
});

t.test('concurrent creates never pass the account plan\'s monitors quota', async (t) => {
  const { app, sql } = await testApp(t, { config: { plan: 'free', billing_plan_quotas: { free: { monitors: 3 } } } });
  const u = await registerUser(app, 'racing@example.test');
  const out = await Promise.all(Array.from({ length: 8 }, (_, i) =>
    call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { ...HTTPS, name: `race ${i}` } })));
  t.equal(out.filter((r) => r.status === 201).length, 3, 'exactly the quota created');
  const refused = out.filter((r) => r.status !== 201);
  t.equal(refused.length, 5);
  for (const r of refused) t.match(r.body.error, { code: 'MONITOR_LIMIT_EXCEEDED', details: { quota: 'monitors', plan: 'free', max: 3 } });
  t.equal((await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM monitors WHERE user_id = ${u.user_id}`)[0]!.n, 3);
});

t.test('concurrent creates never pass the status page and MCP token quotas either', async (t) => {
  const { app, sql } = await testApp(t, { config: { plan: 'free', billing_plan_quotas: { free: { status_pages: 2, mcp_tokens: 3 } } } });
  const u = await registerUser(app, 'racing-pages@example.test');
  const pages = await Promise.all(Array.from({ length: 7 }, (_, i) =>
    call(app, 'POST', '/v1/status-pages', { token: u.access_token, body: { slug: `race-${i}-${u.user_id.slice(-6)}`, title: `Race ${i}` } })));
  t.equal(pages.filter((r) => r.status === 201).length, 2, 'exactly the status page quota created');
  for (const r of pages.filter((x) => x.status !== 201)) t.match(r.body.error, { code: 'QUOTA_EXCEEDED', details: { quota: 'status_pages', plan: 'free', limit: 2, used: 2 } });
  t.equal((await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM status_pages WHERE user_id = ${u.user_id}`)[0]!.n, 2);

  const tokens = await Promise.all(Array.from({ length: 8 }, (_, i) =>
    call(app, 'POST', '/v1/mcp/tokens', { token: u.access_token, body: { type: 'personal', name: `race ${i}` } })));
  t.equal(tokens.filter((r) => r.status === 201).length, 3, 'exactly the MCP token quota created');
  for (const r of tokens.filter((x) => x.status !== 201)) t.match(r.body.error, { code: 'QUOTA_EXCEEDED', details: { quota: 'mcp_tokens', plan: 'free', limit: 3, used: 3 } });
  t.equal((await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM mcp_tokens WHERE user_id = ${u.user_id}`)[0]!.n, 3);
});
