import t from 'tap';
import { newId, probeTaskResultSchema, taskRunMessageSchema } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import { registerUser, testApp } from '../test-support/app.js';
import { addNode, nodeResult, recordingHub } from './test-support.js';
import { waitFor } from '../hub/test-harness.js';

type Hub = ReturnType<typeof recordingHub>;
type App = Awaited<ReturnType<typeof testApp>>;

interface Teardown { teardown(fn: () => unknown): void }

async function setup(t: Teardown, config: Partial<Config> = {}): Promise<App & { hub: Hub }> {
  const hub = recordingHub();
  const app = await testApp(t, { hub: () => hub, config });
  return { ...app, hub };
}

async function post(app: App['app'], type: string, body: unknown, token?: string): Promise<{ status: number; body: any }> {
  const res = await app.request(`/v1/probe/${type}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

async function poll(app: App['app'], task_id: string): Promise<{ status: number; body: any }> {
  const res = await app.request(`/v1/probe/tasks/${task_id}`);
  return { status: res.status, body: await res.json() };
}

t.test('bad requests: 400 VALIDATION_FAILED, private targets 422, unknown task 404', async (t) => {
  const { app, sql } = await setup(t);
  await addNode(sql, { country: 'DE', asn: 64500 });
  const cases: Array<[string, string, unknown, number, string]> = [
    ['missing target', 'ping', {}, 400, 'VALIDATION_FAILED'],
    ['unknown field', 'ping', { target: '1.1.1.1', extra: 1 }, 400, 'VALIDATION_FAILED'],
    ['http timeout below 1000', 'http', { target: 'https://1.1.1.1/', params: { timeout_ms: 500 } }, 400, 'VALIDATION_FAILED'],
    ['http body over 32768', 'http', { target: 'https://1.1.1.1/', params: { method: 'POST', body: 'x'.repeat(32769) } }, 413, 'PAYLOAD_TOO_LARGE'],
    ['ping count 51', 'ping', { target: '1.1.1.1', params: { count: 51 } }, 400, 'VALIDATION_FAILED'],
    ['unknown param', 'ping', { target: '1.1.1.1', params: { size: 1 } }, 400, 'VALIDATION_FAILED'],
    ['http scheme', 'http', { target: 'ftp://1.1.1.1/' }, 400, 'VALIDATION_FAILED'],
    ['ping with a URL', 'ping', { target: 'http://1.1.1.1/' }, 400, 'VALIDATION_FAILED'],
    ['dns target is an IP', 'dns', { target: '1.1.1.1' }, 400, 'VALIDATION_FAILED'],
    ['dns record type', 'dns', { target: 'example.test', params: { record_type: 'PTR' } }, 400, 'VALIDATION_FAILED'],
    ['tcp without a port', 'tcp', { target: '1.1.1.1' }, 400, 'VALIDATION_FAILED'],
    ['tcp port 0', 'tcp', { target: '1.1.1.1', params: { port: 0 } }, 400, 'VALIDATION_FAILED'],
    ['traceroute max_hops 65', 'traceroute', { target: '1.1.1.1', params: { max_hops: 65 } }, 400, 'VALIDATION_FAILED'],
    ['node id shape', 'ping', { target: '1.1.1.1', node_ids: ['node-1'] }, 400, 'VALIDATION_FAILED'],
    ['selection count 0', 'ping', { target: '1.1.1.1', nodes: { count: 0 } }, 400, 'VALIDATION_FAILED'],
    ['loopback literal', 'http', { target: 'http://127.0.0.1:8080/' }, 422, 'PROBE_TARGET_INVALID'],
    ['loopback IPv6', 'http', { target: 'http://[::1]/' }, 422, 'PROBE_TARGET_INVALID'],
    ['localhost resolves to loopback', 'ping', { target: 'localhost' }, 422, 'PROBE_TARGET_INVALID'],
    ['private tcp', 'tcp', { target: '10.0.0.1:22' }, 422, 'PROBE_TARGET_INVALID'],
    ['link-local metadata', 'http', { target: 'http://169.254.169.254/latest/' }, 422, 'PROBE_TARGET_INVALID'],
    ['private DNS server', 'dns', { target: 'example.test', params: { server: '192.168.1.1' } }, 422, 'PROBE_TARGET_INVALID'],
    ['test range without allow-list', 'traceroute', { target: '198.18.1.10' }, 422, 'PROBE_TARGET_INVALID'],
    ['multicast', 'ping', { target: '224.0.0.1' }, 422, 'PROBE_TARGET_INVALID'],
  ];
  for (const [name, type, body, status, code] of cases) {
    const r = await post(app, type, body);
    t.equal(r.status, status, `${name}: status`);
    t.equal(r.body.error?.code, code, `${name}: ${code} (${r.body.error?.message})`);
  }
  const r = await post(app, 'tcp', { target: '1.1.1.1' });
  t.match(r.body.error.details.fields, [{ path: 'params.port' }], 'the field is named');
  t.equal((await poll(app, newId('probe_task'))).body.error.code, 'PROBE_JOB_NOT_FOUND');
  t.equal((await poll(app, 'not-an-id')).status, 404);
});

t.test('node selection errors: unknown 404, offline 503, none matching 422', async (t) => {
  const { app, sql } = await setup(t);
  t.equal((await post(app, 'ping', { target: '1.1.1.1' })).body.error.code, 'PROBE_TOO_FEW_NODES', 'no nodes at all');
  const online = await addNode(sql, { country: 'DE', capabilities: ['ping', 'tcp'] });
  const offline = await addNode(sql, { country: 'US', status: 'offline' });
  const unknown = newId('node');
  let r = await post(app, 'ping', { target: '1.1.1.1', node_ids: [online, unknown] });
  t.equal(r.status, 404);
  t.match(r.body.error, { code: 'NODE_NOT_FOUND', details: { node_ids: [unknown] } });
  r = await post(app, 'ping', { target: '1.1.1.1', node_id: offline });
  t.equal(r.status, 503);
  t.match(r.body.error, { code: 'NODE_OFFLINE', details: { node_ids: [offline] } });
  r = await post(app, 'ping', { target: '1.1.1.1', nodes: { countries: ['jp'] } });
  t.equal(r.status, 422);
  t.equal(r.body.error.code, 'PROBE_TOO_FEW_NODES');
  r = await post(app, 'dns', { target: 'example.test', node_ids: [online] });
  t.equal(r.status, 400, 'a node without the dns capability');
  t.equal((await post(app, 'dns', { target: 'example.test' })).body.error.code, 'PROBE_TOO_FEW_NODES', 'automatic pick skips incapable nodes');
});

t.test('create, dispatch, poll, ingest: the whole task life on the API side', async (t) => {
  const { app, sql, hub, deps } = await setup(t);
  const de = await addNode(sql, { name: 'fra-1', country: 'DE', city: 'Frankfurt', asn: 64500, isp: 'Example GmbH', provider: 'Hetzner' });
  const us = await addNode(sql, { country: 'US', asn: 64501 });
  const jp = await addNode(sql, { country: 'JP', asn: 64502, tags: ['edge'] });
  await addNode(sql, { country: 'FR', status: 'offline' });

  const created = await post(app, 'ping', { target: '1.1.1.1', params: { count: 3 } });
  t.equal(created.status, 202);
  t.match(created.body.data, { status: 'queued' });
  const { task_id, task_ids } = created.body.data;
  t.equal(task_ids.length, 3, 'default pick: 3 online nodes');
  t.equal(task_ids[0], task_id);
  t.equal(hub.sent.length, 3, 'one task.run per node');
  const nodes = hub.sent.map((s) => s.node_id).sort();
  t.same(nodes, [de, us, jp].sort(), 'the three online nodes, not the offline one');
  for (const s of hub.sent) {
    t.ok(taskRunMessageSchema.safeParse(s.message).success, 'task.run matches the protocol');
    t.same(s.message.check, { type: 'ping', target: '1.1.1.1', params: { count: 3, timeout_ms: 5000, interval_ms: 1000, ip_version: 'auto' } }, 'defaulted params');
    t.equal(s.message.timeout_ms, 8000, 'count × interval + timeout');
  }

  let p = await poll(app, task_ids[2]);
  t.equal(p.status, 200);
  t.match(p.body.data, { task_id: task_ids[2], task_ids, status: 'queued', probe_type: 'ping', target: '1.1.1.1', node_results: [], completed_at: null });

  const taskOf = (node: string) => hub.sent.find((s) => s.node_id === node)!.message.task_id;
  await deps.results.taskAck(de, { type: 'task.ack', task_id: taskOf(de), accepted: true });
  // Acks are written within ACK_WRITE_DELAY_MS (task-acks.ts), not at once.
  await waitFor(async () => (await poll(app, task_id)).body.data.status === 'running');
  t.pass('a node accepted: running');

  await deps.results.ingest(de, [nodeResult(taskOf(de), 'ping', 10)]);
  await deps.results.ingest(us, [nodeResult(taskOf(us), 'ping', 30)]);
  p = await poll(app, task_id);
  t.equal(p.body.data.status, 'running');
  t.equal(p.body.data.node_results.length, 2);
  await deps.results.ingest(jp, [nodeResult(taskOf(jp), 'ping', 0, { success: false, error: 'timeout', error_class: 'timeout', output: null })]);
  p = await poll(app, task_id);
  t.ok(probeTaskResultSchema.safeParse(p.body.data).success, 'matches probeTaskResultSchema');
  t.equal(p.body.data.status, 'completed');
  t.ok(p.body.data.completed_at);
  t.same(p.body.data.summary, { avg_response_ms: 20, p95_response_ms: 30, success_count: 2, fail_count: 1 });
  const fra = p.body.data.node_results.find((n: any) => n.node_id === de);
  t.match(fra, { node_name: 'fra-1', node: { asn: 64500, city: 'Frankfurt', country: 'DE', isp: 'Example GmbH' }, success: true, latency_ms: 10, rtt_avg_ms: 10, packets_sent: 1 });

  const filtered = await post(app, 'tcp', { target: '1.1.1.1:443', nodes: { count: 5, tags: ['edge'] } });
  t.equal(filtered.body.data.task_ids.length, 1, 'fewer matches than count: all that match');
  t.equal(hub.sent.at(-1)!.node_id, jp);
  const byCountry = await post(app, 'http', { target: 'https://1.1.1.1/', nodes: { countries: ['de', 'US'], count: 2 } });
  t.same(hub.sent.slice(-2).map((s) => s.node_id).sort(), [de, us].sort(), 'country filter');
  t.equal(byCountry.body.data.task_ids.length, 2);
  const byProvider = await post(app, 'http', { target: 'https://1.1.1.1/', nodes: { providers: ['hetzner'], asns: [64500] } });
  t.equal(byProvider.body.data.task_ids.length, 1);
  t.equal(hub.sent.at(-1)!.node_id, de, 'provider (case-insensitive) and asn filters');
});

t.test('a node found offline at dispatch gets a failed result at once', async (t) => {
  const { app, sql, hub } = await setup(t);
  const a = await addNode(sql, { country: 'DE' });
  const b = await addNode(sql, { country: 'US' });
  hub.offline.add(b);
  const created = await post(app, 'tcp', { target: '1.1.1.1', params: { port: 443 }, node_ids: [a, b] });
  t.equal(created.status, 202);
  const p = await poll(app, created.body.data.task_id);
  t.equal(p.body.data.status, 'running');
  t.match(p.body.data.node_results, [{ node_id: b, success: false, error: 'node offline', error_class: 'internal' }]);
  hub.failing.add(a);
  const again = await post(app, 'tcp', { target: '1.1.1.1:443', node_id: a });
  const q = await poll(app, again.body.data.task_id);
  t.equal(q.body.data.status, 'failed', 'delivery error: the only node failed, so the task failed');
  t.match(q.body.data.node_results[0].error, /could not deliver/);
});

t.test('private targets: allow-list for everyone, own allow_private nodes for signed-in users', async (t) => {
  t.test('probe_allow_cidrs lets anonymous callers reach the test network', async (t) => {
    const { app, sql } = await setup(t, { probe_allow_cidrs: ['198.18.0.0/15', 'fd00:7661::/32'] });
    await addNode(sql, { country: 'DE' });
    t.equal((await post(app, 'ping', { target: '198.18.1.10' })).status, 202);
    t.equal((await post(app, 'http', { target: 'http://[fd00:7661::10]/' })).status, 202);
    t.equal((await post(app, 'ping', { target: '10.0.0.1' })).status, 422, 'other private ranges stay refused');
  });
  t.test('a signed-in owner may probe private targets on nodes that allow it', async (t) => {
    const { app, sql, hub } = await setup(t);
    const user = await registerUser(app);
    const other = await registerUser(app);
    const mine = await addNode(sql, { owner_user_id: user.user_id, allow_private: true });
    const mineClosed = await addNode(sql, { owner_user_id: user.user_id });
    const theirs = await addNode(sql, { owner_user_id: other.user_id, allow_private: true });
    t.equal((await post(app, 'tcp', { target: '10.0.0.5:5432' })).status, 422, 'anonymous: refused');
    const r = await post(app, 'tcp', { target: '10.0.0.5:5432' }, user.access_token);
    t.equal(r.status, 202);
    t.same(r.body.data.task_ids.length, 1);
    t.equal(hub.sent.at(-1)!.node_id, mine, 'only the caller\'s node that allows private targets');
    for (const node of [mineClosed, theirs]) {
      const x = await post(app, 'tcp', { target: '10.0.0.5:5432', node_id: node }, user.access_token);
      t.equal(x.body.error?.code, 'PROBE_TARGET_INVALID', 'a node that does not allow it, or is not yours');
    }
    t.equal((await post(app, 'tcp', { target: '10.0.0.5:5432' }, other.access_token)).status, 202, 'the other user uses their own node');
    t.equal(hub.sent.at(-1)!.node_id, theirs);
  });
});

t.test('DNS probes report inconsistent answers as pollution', async (t) => {
  const { app, sql, hub, deps } = await setup(t);
  const a = await addNode(sql, { country: 'DE' });
  const b = await addNode(sql, { country: 'CN' });
  const created = await post(app, 'dns', { target: 'example.test', params: { record_type: 'A', server: '1.1.1.1' }, node_ids: [a, b] });
  t.equal(created.status, 202);
  const taskOf = (node: string) => hub.sent.find((s) => s.node_id === node)!.message.task_id;
  const answer = (value: string) => ({ server: '1.1.1.1:53', protocol: 'udp', rcode: 'NOERROR', query_ms: 5, truncated: false, answers: [{ name: 'example.test', type: 'A', ttl: 60, value }], authorities: [] });
  await deps.results.ingest(a, [nodeResult(taskOf(a), 'dns', 5, { output: answer('198.18.1.10') } as never)]);
  await deps.results.ingest(b, [nodeResult(taskOf(b), 'dns', 5, { output: answer('198.18.66.66') } as never)]);
  const p = await poll(app, created.body.data.task_id);
  t.match(p.body.data, { status: 'completed', domain: 'example.test', type: 'A', pollution_detected: true });
  t.same(p.body.data.records_by_node.map((r: any) => [r.node_id, r.records[0].value]), [[a, '198.18.1.10'], [b, '198.18.66.66']]);
});

t.test('the probe routes are in the OpenAPI document', async (t) => {
  const { app } = await setup(t);
  const doc = (await (await app.request('/v1/openapi.json')).json()) as any;
  for (const type of ['http', 'ping', 'dns', 'tcp', 'traceroute']) t.ok(doc.paths[`/v1/probe/${type}`]?.post, `POST /v1/probe/${type}`);
  t.ok(doc.paths['/v1/probe/tasks/{task_id}']?.get);
  t.ok(doc.paths['/v1/probe/tasks/{task_id}/stream']?.get?.responses?.['200']?.content?.['text/event-stream']);
});
