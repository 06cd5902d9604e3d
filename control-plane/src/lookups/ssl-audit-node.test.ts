import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import t from 'tap';
import { newId, probeTaskResultSchema, sslLookupSchema } from '@vantage/shared-protocol';
import { makeTestPki, startAuditServer } from '@vantage/node-agent/test-support/ssl-audit-pki';
import { createRunCheck } from '../../../node-agent/src/probes/runner.js';
import { detectCapabilities } from '../../../node-agent/src/probes/capabilities.js';
import { makeToken, waitFor } from '../hub/test-harness.js';
import { addNode } from '../probes/test-support.js';
import { startRealAgent } from '../probes/real-agents.js';
import { call, createApiKey, registerUser, testApp } from '../test-support/app.js';

/*
 * GET /v1/info/ssl?node_id=…: the audit run by a real enrolled agent (the node-agent runtime and
 * its ssl probe) against real TLS servers on loopback made with the SSL audit's test PKI, compared
 * with the control plane's own audit of the same server; a node whose operator does not allow
 * private targets, an offline node, an unknown node, another account's unshared node, a key
 * without the probe scope and a node without the ssl probe.
 */

const LOOPBACK = ['127.0.0.0/8', '::1/128'];
const pki = makeTestPki();
t.teardown(() => pki.cleanup());

const { app, sql, url } = await testApp(t, {
  config: { extra_ca_file: pki.ca_file, delivery_allow_cidrs: LOOPBACK, probe_allow_cidrs: LOOPBACK, lookup_timeout_ms: 3000 },
});

// Agent "DE" may probe loopback and trusts the test CA as the control plane does; agent "FR" keeps the default (public targets only).
const caps = { max_bytes: 1024 * 1024, max_duration_ms: 5000 };
const { capabilities } = detectCapabilities();
if (!capabilities.includes('ssl')) throw new Error(`this process would not advertise the ssl probe: ${capabilities.join(', ')}`);
for (const [country, allow_cidrs] of [['DE', LOOPBACK], ['FR', []]] as const) {
  await startRealAgent(t, {
    url, token: await makeToken(sql, { country_code: country }), allow_cidrs: [...allow_cidrs], capabilities: capabilities as never,
    runCheck: createRunCheck({ speedtest: caps, ssl: { extra_ca_pem: pki.ca.cert } }),
  });
}
await waitFor(async () => (await sql`SELECT count(*)::int AS n FROM nodes WHERE status = 'online'`)[0]!.n === 2, 60_000);
const nodeOf = async (country: string) => (await sql<{ id: string }[]>`SELECT id FROM nodes WHERE country = ${country}`)[0]!.id;
const loopback_node = await nodeOf('DE');
const public_node = await nodeOf('FR');

const audit = (q: string, port: number, node_id?: string, token?: string) =>
  call(app, 'GET', `/v1/info/ssl?q=${encodeURIComponent(q)}&port=${port}${node_id ? `&node_id=${node_id}` : ''}`, { token });

/** The audit without what differs between two runs of it: its duration and who ran it. */
const comparable = (d: Record<string, unknown>) => {
  const { audit_ms: _ms, node_id: _node, ...rest } = d;
  return rest;
};

t.test('the same server audited by the control plane and by a node: the same answer, plus the node', async (t) => {
  const servers = [
    ['good, stapled OCSP, HSTS', await startAuditServer(t, pki.good, { ocsp: pki.ocsp_good, hsts: 'max-age=31536000; includeSubDomains' })],
    ['TLS 1.0-1.3', await startAuditServer(t, pki.good, { min: 'TLSv1', max: 'TLSv1.3' })],
    ['expired', await startAuditServer(t, pki.expired)],
    ['with SCTs, revoked', await startAuditServer(t, pki.with_scts, { ocsp: pki.ocsp_revoked })],
  ] as const;
  for (const [what, port] of servers) {
    const here = await audit('localhost', port);
    const there = await audit('localhost', port, loopback_node);
    t.equal(here.status, 200, `${what}: control plane ${JSON.stringify(here.body.error ?? '')}`);
    t.equal(there.status, 200, `${what}: node ${JSON.stringify(there.body.error ?? '')}`);
    t.ok(sslLookupSchema.safeParse(there.body.data).success, `${what}: matches sslLookupSchema`);
    t.equal(here.body.data.node_id, null, `${what}: the control plane ran it`);
    t.equal(there.body.data.node_id, loopback_node, `${what}: the node ran it`);
    t.same(comparable(there.body.data), comparable(here.body.data), `${what}: same audit`);
  }
  const good = await audit('localhost', servers[0][1], loopback_node);
  t.match(good.body.data, { valid: true, grade: 'A+', ocsp_status: 'good', hsts_max_age_s: 31_536_000 }, 'the node trusts the CA it was given');
});

t.test('a private target on a node that does not allow private targets: 422, the node refused it', async (t) => {
  const port = await startAuditServer(t, pki.good);
  const res = await audit('localhost', port, public_node);
  t.equal(res.status, 422);
  t.match(res.body.error, { code: 'PROBE_TARGET_INVALID', details: { node_id: public_node, q: 'localhost', reason: /127\.0\.0\.1|::1/ } });
});

t.test('a silent server through the node: 503 with Retry-After', async (t) => {
  const silent = createTcpServer(() => {});
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  t.teardown(() => silent.close());
  const res = await audit('localhost', (silent.address() as AddressInfo).port, loopback_node);
  t.equal(res.status, 503);
  t.equal(res.headers.get('retry-after'), '30');
  t.match(res.body.error, { code: 'UNAVAILABLE', details: { node_id: loopback_node, timeout: true } });
});

t.test('unknown, offline, another account\'s unshared, and unable nodes; a malformed node_id', async (t) => {
  const unknown = newId('node');
  const missing = await audit('localhost', 443, unknown);
  t.equal(missing.status, 404);
  t.match(missing.body.error, { code: 'NODE_NOT_FOUND', details: { node_id: unknown } });

  const offline = await addNode(sql, { country: 'US', capabilities: ['ssl'], status: 'offline' });
  const down = await audit('localhost', 443, offline);
  t.equal(down.status, 503);
  t.ok(Number(down.headers.get('retry-after')) > 0, 'Retry-After');
  t.match(down.body.error, { code: 'NODE_OFFLINE', details: { node_id: offline } });

  const owner = await registerUser(app);
  const other = await registerUser(app);
  const unshared = await addNode(sql, { country: 'NL', capabilities: ['ssl'], owner_user_id: owner.user_id, shared: false });
  for (const [who, token] of [['anonymous', undefined], ['another account', other.access_token]] as const) {
    const res = await audit('localhost', 443, unshared, token);
    t.equal(res.status, 404, `${who}: 404, never 403`);
    t.match(res.body.error, { code: 'NODE_NOT_FOUND', details: { node_id: unshared } });
    t.notMatch(JSON.stringify(res.body), /not shared|owner/, `${who}: nothing says the node exists`);
  }

  const reader = await createApiKey(app, other.access_token, ['read']);
  const scoped = await audit('localhost', 443, loopback_node, reader.key);
  t.equal(scoped.status, 403, 'a key without the probe scope may not run it on a node');
  t.match(scoped.body.error, { code: 'FORBIDDEN', details: { required_scope: 'probe' } });

  const old = await addNode(sql, { country: 'JP', capabilities: ['http', 'ping', 'dns', 'tcp', 'traceroute'] });
  const unable = await audit('localhost', 443, old);
  t.equal(unable.status, 400);
  t.match(unable.body.error, { code: 'VALIDATION_FAILED', message: /cannot run SSL audits/, details: { node_id: old, fields: [{ path: 'node_id' }] } });

  const bad = await audit('localhost', 443, 'not-a-node');
  t.equal(bad.status, 400);
  t.match(JSON.stringify(bad.body.error), /node_id/, 'a malformed node_id is named');

  t.equal((await sql`SELECT count(*)::int AS n FROM probe_tasks WHERE node_id IN ${sql([offline, unshared, old])}`)[0]!.n, 0, 'no task was created for a refused node');
  t.equal((await sql`SELECT count(*)::int AS n FROM probe_tasks WHERE requester_user_id = ${other.user_id}`)[0]!.n, 0, 'nor for the refused key');
});

t.test('POST /v1/probe/ssl: the same probe through the probe API, polled', async (t) => {
  const port = await startAuditServer(t, pki.good);
  const created = await call(app, 'POST', '/v1/probe/ssl', { body: { target: `localhost:${port}`, node_id: loopback_node, params: { timeout_ms: 3000 } } });
  t.equal(created.status, 202, JSON.stringify(created.body.error ?? ''));
  let result: any;
  await waitFor(async () => {
    result = (await call(app, 'GET', `/v1/probe/tasks/${created.body.data.task_id}`)).body.data;
    return result.status === 'completed' || result.status === 'failed';
  }, 60_000);
  t.ok(probeTaskResultSchema.safeParse(result).success, 'matches probeTaskResultSchema');
  t.equal(result.probe_type, 'ssl');
  t.match(result.node_results[0], { node_id: loopback_node, success: true, port, audit: { domain: 'localhost', valid: true } });
  t.type(result.node_results[0].latency_ms, 'number', 'latency_ms is the audit time');
});

t.test('VANTAGE_PUBLIC_PROBES=accounts: an anonymous node_id is refused before anything runs; without node_id the lookup stays public', async (t) => {
  const closed = (await testApp(t, { config: { public_probes: 'accounts', lookup_timeout_ms: 500 } })).app;
  const res = await call(closed, 'GET', `/v1/info/ssl?q=localhost&port=443&node_id=${loopback_node}`);
  t.equal(res.status, 401);
  t.match(res.body.error, { code: 'AUTH_REQUIRED', details: { setting: 'VANTAGE_PUBLIC_PROBES', value: 'accounts' } });
  const plain = await call(closed, 'GET', '/v1/info/ssl?q=localhost&port=443');
  t.not(plain.status, 401, 'the control-plane audit asks no credential');
});
