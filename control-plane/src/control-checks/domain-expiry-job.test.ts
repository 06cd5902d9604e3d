import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { newId } from '@vantage/shared-protocol';
import t from 'tap';
import { Webhook } from 'standardwebhooks';
import { seedUser } from '../checks/test-support.js';
import { createOutboundConnector } from '../delivery/connector.js';
import { createOutboundPolicy } from '../delivery/outbound-policy.js';
import { parseBootstrap } from '../lookups/rdap-bootstrap.js';
import type { DomainLookupOptions } from '../lookups/whois-lookup.js';
import type { Sql } from '../db/sql.js';
import { startReceiver } from '../delivery/test-support.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { testDatabase } from '../test-support/db.js';
import { runDomainChecks } from './domain-expiry-job.js';

/* domain_expiry runs against a loopback RDAP server: thresholds, one run per round across instances, the outbound policy, stopping. */

type Tap = { teardown(fn: () => unknown): void };

/**
 * Look-up options for the registry `rdap` (an RDAP server started on 127.0.0.1, port 0, serving
 * .test) through a connector whose policy opens `allow` (delivery_allow_cidrs); all closed at teardown.
 */
async function registry(t: Tap, rdap: RequestListener, allow: string[], o: Partial<DomainLookupOptions> = {}): Promise<DomainLookupOptions> {
  const server = createServer(rdap);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const connector = createOutboundConnector(createOutboundPolicy({ probe_allow_cidrs: [], delivery_allow_cidrs: allow }));
  t.teardown(() => { server.closeAllConnections(); server.close(); return connector.close(); });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return { connector, bootstrap: parseBootstrap(JSON.stringify({ version: '1.0', services: [[['test'], [base]]] })), whois_server: () => '127.0.0.1:1', timeout_ms: 5000, ...o };
}

/** An active domain_expiry monitor of `user` on `target`. @returns its id */
async function addMonitor(sql: Sql, user: string, target: string, config: { [k: string]: number } = {}): Promise<string> {
  const id = newId('monitor');
  await sql`INSERT INTO monitors (id, user_id, name, type, target, config, interval_s, node_count)
    VALUES (${id}, ${user}, ${id}, 'domain_expiry', ${target}, ${sql.json(config)}, 1800, 0)`;
  return id;
}

/** The stored control-plane checks by monitor id. */
async function storedChecks(sql: Sql) {
  const rows = await sql<{ monitor_id: string; success: boolean; error: string | null; error_class: string | null; output: any }[]>`
    SELECT s.monitor_id, c.success, c.error, c.error_class, c.output FROM checks c JOIN check_series s ON s.id = c.series_id WHERE s.node_id IS NULL`;
  return new Map(rows.map((r) => [r.monitor_id, r]));
}

t.test('down below min_days_remaining; once per round even with two instances', async (t) => {
  const { sql } = await testDatabase(t);
  const expiry: Record<string, string> = { 'soon.test': '2026-12-01T00:00:00Z', 'later.test': '2027-06-01T00:00:00Z' };
  const lookup = await registry(t, (req, res) => {
    const name = decodeURIComponent(req.url!.split('/').pop()!);
    if (!expiry[name]) { res.statusCode = 404; res.end(); return; }
    res.setHeader('content-type', 'application/rdap+json');
    res.end(JSON.stringify({ objectClassName: 'domain', ldhName: name, events: [{ eventAction: 'expiration', eventDate: expiry[name] }] }));
  }, ['127.0.0.0/8']);
  const user = await seedUser(sql);
  const ids: Record<string, string> = {};
  for (const [name, config] of [['soon.test', { min_days_remaining: 30 }], ['later.test', { min_days_remaining: 30 }], ['gone.test', {}]] as const) {
    ids[name] = await addMonitor(sql, user, name, config);
  }
  const now = () => new Date('2026-11-22T12:00:00Z');
  const [a, b] = await Promise.all([runDomainChecks(sql, lookup, now), runDomainChecks(sql, lookup, now)]);
  t.equal(a + b, 3, 'each monitor checked once by one of the two passes');
  t.equal(await runDomainChecks(sql, lookup, now), 0, 'not due again within its round');
  const by = await storedChecks(sql);
  t.match(by.get(ids['soon.test']!), { success: false, error_class: 'assertion', error: 'soon.test expires in 8 days (2026-12-01T00:00:00.000Z), fewer than 30', output: { source: 'rdap', days_until_expiry: 8 } });
  t.match(by.get(ids['later.test']!), { success: true, error: null, output: { days_until_expiry: 190 } });
  t.match(by.get(ids['gone.test']!), { success: false, error_class: 'target', output: null, error: /not found/ });
});

t.test('a registry the outbound policy refuses: the check is down with the reason, the server never asked', async (t) => {
  const { sql } = await testDatabase(t);
  let requests = 0;
  const lookup = await registry(t, (_req, res) => { requests++; res.end('{}'); }, [], {
    // The default WHOIS server of .localhost (whois.nic.localhost, loopback by RFC 6761); .test's points at loopback too.
    whois_server: (tld: string) => (tld === 'localhost' ? 'whois.nic.localhost' : '127.0.0.1:43'),
  });
  const user = await seedUser(sql);
  const ids = { rdap: await addMonitor(sql, user, 'inside.test'), whois: await addMonitor(sql, user, 'example.localhost') };
  t.equal(await runDomainChecks(sql, lookup, () => new Date('2026-11-22T12:00:00Z')), 2);
  const by = await storedChecks(sql);
  t.match(by.get(ids.rdap), { success: false, error_class: 'target', output: null, error: /^RDAP: 127\.0\.0\.1, a loopback address, which the control plane does not connect to \(the operator can open a range with VANTAGE_DELIVERY_ALLOW_CIDRS\); WHOIS: 127\.0\.0\.1, a loopback/ });
  t.match(by.get(ids.whois), { success: false, error_class: 'target', output: null, error: /; WHOIS: whois\.nic\.localhost resolves to (127\.0\.0\.1|::1), a loopback address, .*VANTAGE_DELIVERY_ALLOW_CIDRS/ });
  t.equal(requests, 0, 'the RDAP server got no request');
});

t.test('stopping drops the look-up under way and releases the claim; nothing is stored', async (t) => {
  const { sql } = await testDatabase(t);
  let asked!: () => void;
  const reached = new Promise<void>((r) => { asked = r; });
  const lookup = await registry(t, () => asked(), ['127.0.0.0/8'], { timeout_ms: 60_000 }); // never answers
  const user = await seedUser(sql);
  const ids = [await addMonitor(sql, user, 'slow.test'), await addMonitor(sql, user, 'slow.test')];
  const at = new Date('2026-11-22T12:00:00Z');
  const stop = new AbortController();
  const pass = runDomainChecks(sql, lookup, () => at, stop.signal);
  await reached;
  stop.abort();
  t.equal(await pass, 0, 'nothing stored');
  t.equal((await sql`SELECT 1 FROM checks`).length, 0);
  const due = await sql<{ next_run_at: Date }[]>`SELECT next_run_at FROM domain_expiry_state WHERE monitor_id = ANY(${ids}::text[])`;
  t.same(due.map((r) => r.next_run_at.toISOString()), [at.toISOString(), at.toISOString()], 'both monitors due again at once');
});

t.test('domain.expiring reaches a subscribed endpoint once per threshold crossed; a renewal starts over', async (t) => {
  const { app, sql, deps } = await testApp(t, { config: { delivery_allow_cidrs: ['127.0.0.0/8'], delivery_poll_interval_ms: 50 }, delivery: true });
  const u = await registerUser(app);
  const rx = await startReceiver(t);
  const endpoint = await call(app, 'POST', '/v1/webhook-endpoints', { token: u.access_token, body: { url: rx.url, events: ['domain.expiring'] } });
  t.equal(endpoint.status, 201);
  let expires = '2026-12-22T00:00:00Z';
  const lookup = await registry(t, (req, res) => {
    const name = decodeURIComponent(req.url!.split('/').pop()!);
    res.setHeader('content-type', 'application/rdap+json');
    res.end(JSON.stringify({
      objectClassName: 'domain', ldhName: name, events: [{ eventAction: 'expiration', eventDate: expires }],
      entities: [{ objectClassName: 'entity', roles: ['registrar'], vcardArray: ['vcard', [['version', {}, 'text', '4.0'], ['fn', {}, 'text', 'Example Registrar']]] }],
    }));
  }, ['127.0.0.0/8']);
  const id = await addMonitor(sql, u.user_id, 'shop.test', { min_days_remaining: 5, warn_days: 30, critical_days: 7 });
  const queued = async () => (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM deliveries WHERE event_type = 'domain.expiring'`)[0]!.n;
  const verify = (i: number) => {
    const r = rx.received[i]!;
    return new Webhook(endpoint.body.data.secret).verify(r.body, {
      'webhook-id': String(r.headers['webhook-id']), 'webhook-timestamp': String(r.headers['webhook-timestamp']), 'webhook-signature': String(r.headers['webhook-signature']),
    }) as { type: string; data: any };
  };
  const run = (at: string) => runDomainChecks(sql, lookup, () => new Date(at), undefined, deps.events);

  t.equal(await run('2026-11-01T12:00:00Z'), 1, '50 days left: above warn_days');
  t.equal(await queued(), 0, 'no event');
  t.equal(await run('2026-11-22T12:00:00Z'), 1, '29 days left');
  await rx.waitFor(1);
  t.match(verify(0), {
    type: 'domain.expiring',
    data: { monitor: { id, type: 'domain_expiry', target: 'shop.test' }, domain: 'shop.test', registrar: 'Example Registrar', expires_at: '2026-12-22T00:00:00.000Z', days_left: 29 },
  }, 'below warn_days: signed event with the registration');
  t.equal(await run('2026-11-22T12:30:00Z'), 1, 'the next round');
  t.equal(await run('2026-12-01T12:00:00Z'), 1, '20 days left');
  t.equal(await queued(), 1, 'still one event: warn_days crossed once');
  t.equal(await run('2026-12-16T12:00:00Z'), 1, '5 days left');
  await rx.waitFor(2);
  t.match(verify(1), { type: 'domain.expiring', data: { days_left: 5, expires_at: '2026-12-22T00:00:00.000Z' } }, 'below critical_days: one more');
  t.equal(await run('2026-12-17T12:00:00Z'), 1);
  t.equal(await queued(), 2, 'critical_days crossed once');

  expires = '2027-12-22T00:00:00Z';
  t.equal(await run('2026-12-18T12:00:00Z'), 1, 'renewed for a year');
  t.equal(await queued(), 2, 'nothing to report');
  expires = '2027-01-10T00:00:00Z';
  t.equal(await run('2026-12-19T12:00:00Z'), 1, 'another registration, 21 days left');
  await rx.waitFor(3);
  t.match(verify(2), { type: 'domain.expiring', data: { days_left: 21, expires_at: '2027-01-10T00:00:00.000Z' } }, 'a new expiry date is news again');
  t.equal(await queued(), 3);
});
