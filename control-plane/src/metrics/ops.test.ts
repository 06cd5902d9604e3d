import { connect as connectTcp, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { createApp } from '../app.js';
import { connect } from '../db/sql.js';
import { testApp } from '../test-support/app.js';
import { httpResult, roundAt, seedMonitor } from '../checks/test-support.js';

/** The value of one sample line `name{labels} value` of a scrape, or null when it is absent. */
function sample(text: string, name: string, labels = ''): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
  return line === undefined ? null : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** A TCP relay on 127.0.0.1:0 to the test Postgres: closing it cuts every connection through it, as a stopped server would. */
async function relay(t: { teardown(fn: () => unknown): void }, port = 0): Promise<{ port: number; stop(): Promise<void> }> {
  const target = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connectTcp(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) { sockets.add(s); s.on('close', () => sockets.delete(s)); s.on('error', () => s.destroy()); }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const stop = () => new Promise<void>((resolve) => { for (const s of sockets) s.destroy(); server.close(() => resolve()); });
  t.teardown(() => (server.listening ? stop() : undefined));
  return { port: (server.address() as AddressInfo).port, stop };
}

t.test('healthz and readyz answer before credentials; readyz follows listening, draining and migrations', async (t) => {
  const { url, deps, sql } = await testApp(t, { metrics: true });
  const health = await fetch(`${url}/healthz`);
  t.equal(health.status, 200);
  t.same(await health.json(), { status: 'ok' });
  const ready = await fetch(`${url}/readyz`);
  t.equal(ready.status, 200);
  t.same(await ready.json(), { status: 'ready', checks: { database: 'ok', migrations: 'ok', hub: 'ok' } });
  // The console (console/console-serve.ts) never answers these paths, even for a browser asking for HTML.
  const html = await fetch(`${url}/healthz`, { headers: { accept: 'text/html' } });
  t.match(html.headers.get('content-type'), /^application\/json/);
  t.same(await html.json(), { status: 'ok' });
  // A bad credential would be 401 on the API: these paths never look at it.
  t.equal((await fetch(`${url}/healthz`, { headers: { authorization: 'Bearer sk_live_nonsense' } })).status, 200);

  deps.ops!.draining = true;
  const draining = await fetch(`${url}/readyz`);
  t.equal(draining.status, 503);
  const body = await draining.json() as { error: { code: string; details: { checks: Record<string, string> } } };
  t.equal(body.error.code, 'UNAVAILABLE');
  t.equal(body.error.details.checks.hub, 'draining');
  t.equal((await fetch(`${url}/healthz`)).status, 200, 'the process is still alive while draining');
  deps.ops!.draining = false;

  const [last] = await sql<{ name: string }[]>`SELECT name FROM schema_migrations ORDER BY name DESC LIMIT 1`;
  await sql`DELETE FROM schema_migrations WHERE name = ${last!.name}`;
  const behind = await (await fetch(`${url}/readyz`)).json() as { error: { details: { checks: Record<string, string> } } };
  t.equal(behind.error.details.checks.migrations, `1 not applied (first: ${last!.name})`);
  await sql`INSERT INTO schema_migrations (name) VALUES (${last!.name})`;
  t.equal((await fetch(`${url}/readyz`)).status, 200);
});

t.test('readyz fails while the database is unreachable and recovers when it answers again', async (t) => {
  const { deps } = await testApp(t, { metrics: true });
  const path = new URL(deps.config.database_url!).pathname;
  const first = await relay(t);
  const db = connect(`postgres://postgres@127.0.0.1:${first.port}${path}`, 2);
  t.teardown(() => db.end({ timeout: 1 }));
  const app = createApp({ ...deps, sql: db });
  t.equal((await app.request('/readyz')).status, 200, 'through the relay');
  await first.stop();
  const down = await app.request('/readyz');
  t.equal(down.status, 503);
  const body = await down.json() as { error: { details: { checks: Record<string, string> } } };
  t.match(body.error.details.checks.database, /^unreachable: /);
  t.equal(body.error.details.checks.migrations, 'unknown');
  const again = await relay(t, first.port);
  t.equal(again.port, first.port);
  let status = 0;
  for (let i = 0; i < 100 && status !== 200; i++) {
    status = (await app.request('/readyz')).status;
    if (status !== 200) await new Promise((r) => setTimeout(r, 100));
  }
  t.equal(status, 200, 'ready again once the database answers');
});

t.test('/metrics: loopback peers without a token; route templates, not paths; queue, lag and monitor series', async (t) => {
  const { url, deps, sql } = await testApp(t, { metrics: true });
  t.equal((await fetch(`${url}/v1/monitors/mon_doesnotexist1234`)).status, 401);
  t.equal((await fetch(`${url}/no/such/path`)).status, 404);
  await fetch(`${url}/healthz`);
  await sql`INSERT INTO deliveries (id, message_id, channel, destination, event_type, payload, created_at, next_attempt_at)
            VALUES ('dlv_metricstest1', 'msg_1', 'webhook', 'https://hooks.example.test/', 'monitor.down', '{}', now() - interval '120 seconds', now() + interval '1 hour')`;
  await sql`UPDATE check_jobs SET due_at = now() - interval '300 seconds' WHERE name = 'rollup'`;
  const m = await seedMonitor(sql, { nodes: 2 });
  const [a, b] = m.node_ids as [string, string];
  const round = roundAt(m, -1); // once: two calls could straddle a round boundary
  await deps.results.ingest(a, [httpResult(m.monitor_id, round, { response_ms: 120 })]);
  await deps.results.ingest(b, [httpResult(m.monitor_id, round, { success: false })]);

  const res = await fetch(`${url}/metrics`);
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  t.ok(sample(text, 'vantage_http_requests_total', 'method="GET",route="/v1/monitors/:id",status="401"')! >= 1, 'the route template');
  t.notOk(text.includes('mon_doesnotexist1234'), 'never the raw path');
  t.ok(sample(text, 'vantage_http_requests_total', 'method="GET",route="(unmatched)",status="404"')! >= 1);
  t.ok(sample(text, 'vantage_http_request_duration_seconds_count', 'method="GET",route="/healthz"')! >= 1);
  t.equal(sample(text, 'vantage_delivery_queue_depth'), 1);
  t.ok(sample(text, 'vantage_delivery_queue_oldest_age_seconds')! >= 119);
  t.ok(sample(text, 'vantage_job_lag_seconds', 'name="rollup"')! >= 299);
  t.equal(sample(text, 'vantage_job_lag_seconds', 'name="placement"'), 0);
  t.equal(sample(text, 'vantage_db_up'), 1);
  t.equal(sample(text, 'vantage_db_pool_max_connections', 'pool="main"'), 10);
  t.equal(sample(text, 'vantage_hub_nodes_connected'), 0);
  t.equal(sample(text, 'vantage_results_stored_total', 'kind="monitor"'), 2);
  t.equal(sample(text, 'vantage_monitor_up', `monitor="${m.monitor_id}",node="${a}"`), 1);
  t.equal(sample(text, 'vantage_monitor_up', `monitor="${m.monitor_id}",node="${b}"`), 0);
  t.equal(sample(text, 'vantage_monitor_check_duration_seconds', `monitor="${m.monitor_id}",node="${a}"`), 0.12);
  t.ok(sample(text, 'process_resident_memory_bytes')! > 0, 'process metrics');

  const proxied = await fetch(`${url}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
  t.equal(proxied.status, 403, 'a request relayed by a proxy on this host is not a loopback peer');
  t.equal((await proxied.json() as { error: { code: string } }).error.code, 'FORBIDDEN');
  t.equal((await createApp(deps).request('/metrics')).status, 403, 'no socket, no peer address: refused');
});

t.test('/metrics with a token: Bearer token required from anywhere, compared whole', async (t) => {
  const { deps } = await testApp(t, { metrics: true });
  const app = createApp({ ...deps, config: { ...deps.config, metrics_token: 'scrape-token-0123456789' } });
  const none = await app.request('/metrics');
  t.equal(none.status, 401);
  t.equal((await none.json() as { error: { code: string } }).error.code, 'AUTH_REQUIRED');
  const wrong = await app.request('/metrics', { headers: { authorization: 'Bearer scrape-token-012345678' } });
  t.equal((await wrong.json() as { error: { code: string } }).error.code, 'AUTH_INVALID_TOKEN');
  const right = await app.request('/metrics', { headers: { authorization: 'Bearer scrape-token-0123456789', 'x-forwarded-for': '203.0.113.9' } });
  t.equal(right.status, 200);
  t.match(await right.text(), /^# HELP vantage_http_requests_total /m);
});
