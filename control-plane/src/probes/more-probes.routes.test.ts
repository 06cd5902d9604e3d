import t from 'tap';
import { probeTaskResultSchema, taskRunMessageSchema } from '@vantage/shared-protocol';
import { testApp } from '../test-support/app.js';
import { addNode, nodeResult, recordingHub } from './test-support.js';

// mtr, smtp and ntp through the API: validation, capability-aware selection, the task.run sent,
// and the polled node results with their per-type fields and headline latency.

async function setup(t: Parameters<typeof testApp>[0]) {
  const hub = recordingHub();
  const app = await testApp(t, { hub: () => hub });
  return { ...app, hub };
}

async function post(app: Awaited<ReturnType<typeof testApp>>['app'], type: string, body: unknown) {
  const res = await app.request(`/v1/probe/${type}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
}

t.test('bad mtr, smtp and ntp requests: 400 naming the field, private targets 422', async (t) => {
  const { app, sql } = await setup(t);
  await addNode(sql, { country: 'DE', capabilities: ['mtr', 'smtp', 'ntp', 'speedtest'] });
  const cases: Array<[string, string, unknown, number, string, string?]> = [
    ['mtr count 101', 'mtr', { target: '1.1.1.1', params: { count: 101 } }, 400, 'VALIDATION_FAILED', 'params.count'],
    ['mtr run too long', 'mtr', { target: '1.1.1.1', params: { count: 100, interval_ms: 5000 } }, 400, 'VALIDATION_FAILED', 'params.count'],
    ['mtr sctp mode', 'mtr', { target: '1.1.1.1', params: { protocol: 'sctp' } }, 400, 'VALIDATION_FAILED', 'params.protocol'],
    ['mtr port without tcp', 'mtr', { target: '1.1.1.1', params: { port: 443 } }, 400, 'VALIDATION_FAILED', 'params.port'],
    ['mtr with a port', 'mtr', { target: '1.1.1.1:80' }, 400, 'VALIDATION_FAILED', 'target'],
    ['smtp mail_from alone', 'smtp', { target: '1.1.1.1', params: { mail_from: 'a@example.com' } }, 400, 'VALIDATION_FAILED', 'params.rcpt_to'],
    ['smtp bad mailbox', 'smtp', { target: '1.1.1.1', params: { mail_from: 'a b@x', rcpt_to: 'c@d.e' } }, 400, 'VALIDATION_FAILED', 'params.mail_from'],
    ['smtp URL target', 'smtp', { target: 'smtp://1.1.1.1' }, 400, 'VALIDATION_FAILED', 'target'],
    ['ntp count 17', 'ntp', { target: '1.1.1.1', params: { count: 17 } }, 400, 'VALIDATION_FAILED', 'params.count'],
    ['ntp port 0', 'ntp', { target: '1.1.1.1:0' }, 400, 'VALIDATION_FAILED', 'target'],
    ['private mtr', 'mtr', { target: '10.0.0.1' }, 422, 'PROBE_TARGET_INVALID'],
    ['loopback smtp', 'smtp', { target: '127.0.0.1:25' }, 422, 'PROBE_TARGET_INVALID'],
    ['private ntp', 'ntp', { target: '192.168.1.1' }, 422, 'PROBE_TARGET_INVALID'],
    ['speedtest host only', 'speedtest', { target: '1.1.1.1' }, 400, 'VALIDATION_FAILED', 'target'],
    ['speedtest upload over 1 GiB', 'speedtest', { target: 'http://1.1.1.1/', params: { upload_bytes: 2 ** 31 } }, 400, 'VALIDATION_FAILED', 'params.upload_bytes'],
    ['private speedtest', 'speedtest', { target: 'http://10.1.2.3/x' }, 422, 'PROBE_TARGET_INVALID'],
  ];
  for (const [name, type, body, status, code, field] of cases) {
    const r = await post(app, type, body);
    t.equal(r.status, status, `${name}: status`);
    t.equal(r.body.error?.code, code, `${name}: ${r.body.error?.message}`);
    if (field) t.match(JSON.stringify(r.body.error?.details ?? {}), field, `${name}: names ${field}`);
  }
});

t.test('only nodes advertising the type are picked; the task carries the defaulted params and its bound', async (t) => {
  const { app, sql, hub, deps } = await setup(t);
  const old = await addNode(sql, { country: 'US', capabilities: ['http', 'ping', 'dns', 'tcp', 'traceroute'] });
  const de = await addNode(sql, { country: 'DE', capabilities: ['http', 'ping', 'dns', 'tcp', 'traceroute', 'mtr', 'smtp', 'ntp', 'speedtest'] });
  t.equal((await post(app, 'mtr', { target: '1.1.1.1', node_id: old })).status, 400, 'a named node without mtr');

  const expected = {
    mtr: { params: { count: 10, protocol: 'icmp', max_hops: 30, interval_ms: 1000, timeout_ms: 1000, hostnames: true, ip_version: 'auto' }, timeout_ms: 12_000, target: '1.1.1.1' },
    smtp: { params: { timeout_ms: 10000, starttls: true, ip_version: 'auto' }, timeout_ms: 10_000, target: '1.1.1.1:587' },
    ntp: { params: { count: 4, interval_ms: 1000, timeout_ms: 2000, ip_version: 'auto' }, timeout_ms: 11_000, target: '1.1.1.1' },
    speedtest: { params: { upload_bytes: 1000, timeout_ms: 20000, ip_version: 'auto' }, timeout_ms: 41_000, target: 'https://1.1.1.1/100MB.bin', asked: { upload_bytes: 1000, timeout_ms: 20000 } },
  } as const;
  for (const [type, e] of Object.entries(expected)) {
    const created = await post(app, type, { target: e.target, nodes: { count: 3 }, ...('asked' in e ? { params: e.asked } : {}) });
    t.equal(created.status, 202, `${type}: ${JSON.stringify(created.body.error ?? '')}`);
    t.equal(created.body.data.task_ids.length, 1, `${type}: only the capable node`);
    const sent = hub.sent.at(-1)!;
    t.equal(sent.node_id, de);
    t.ok(taskRunMessageSchema.safeParse(sent.message).success, `${type}: task.run matches the protocol`);
    t.same(sent.message.check, { type, target: e.target, params: e.params }, `${type}: defaulted params`);
    t.equal(sent.message.timeout_ms, e.timeout_ms, `${type}: task bound`);

    const task_id = created.body.data.task_id;
    await deps.results.ingest(de, [nodeResult(task_id, type as 'mtr', 7.5)]);
    const poll = (await (await app.request(`/v1/probe/tasks/${task_id}`)).json() as any).data;
    t.ok(probeTaskResultSchema.safeParse(poll).success, `${type}: the poll matches probeTaskResultSchema`);
    t.equal(poll.probe_type, type);
    t.equal(poll.status, 'completed');
    t.equal(poll.node_results[0].latency_ms, 7.5, `${type}: headline latency`);
    t.same(poll.summary, { avg_response_ms: 7.5, p95_response_ms: 7.5, success_count: 1, fail_count: 0 });
  }
});

t.test('mtr TCP mode is accepted; hop ASNs come from the offline ASN data, private hops stay null', async (t) => {
  const { app, sql, hub, deps } = await setup(t);
  const node = await addNode(sql, { country: 'DE', capabilities: ['mtr'] });
  const created = await post(app, 'mtr', { target: '8.8.8.8', params: { protocol: 'tcp', port: 443, count: 2 } });
  t.equal(created.status, 202, JSON.stringify(created.body.error ?? ''));
  t.match(hub.sent.at(-1)!.message.check, { type: 'mtr', params: { protocol: 'tcp', port: 443, count: 2 } });
  const task_id = created.body.data.task_id;
  const hop = (n: number, address: string | null, asn: number | null) => ({
    hop: n, address, hostname: null, asn, loss_pct: address ? 0 : 100, sent: 2, received: address ? 2 : 0,
    ...(address ? { last_ms: 5, avg_ms: 5, best_ms: 5, worst_ms: 5, stdev_ms: 0 } : { last_ms: null, avg_ms: null, best_ms: null, worst_ms: null, stdev_ms: null }),
  });
  const result = nodeResult(task_id, 'mtr', 5);
  result.output = {
    resolved_address: '8.8.8.8', protocol: 'tcp', destination_reached: true, rounds: 2,
    // What the node says about asn is not trusted: 64512 on a private hop is dropped, 1 on Google's address corrected.
    hops: [hop(1, '192.168.1.1', 64512), hop(2, '10.20.0.1', null), hop(3, null, null), hop(4, '2001:4860:4860::8888', null), hop(5, '8.8.8.8', 1)],
  };
  t.same(await deps.results.ingest(node, [result]), { stored: [result.result_id], rejected: [] });
  const poll = (await (await app.request(`/v1/probe/tasks/${task_id}`)).json() as any).data;
  t.ok(probeTaskResultSchema.safeParse(poll).success, 'the poll matches probeTaskResultSchema');
  t.equal(poll.node_results[0].protocol, 'tcp');
  t.same(poll.node_results[0].hops.map((h: { address: string | null; asn: number | null }) => [h.address, h.asn]), [
    ['192.168.1.1', null], ['10.20.0.1', null], [null, null], ['2001:4860:4860::8888', 15169], ['8.8.8.8', 15169],
  ]);
});

t.test('headers: one node by default, and the group carries the analysis fields', async (t) => {
  const { app, sql, hub, deps } = await setup(t);
  await addNode(sql, { country: 'US', capabilities: ['headers'] });
  await addNode(sql, { country: 'DE', capabilities: ['headers'] });
  t.equal((await post(app, 'headers', { target: '1.1.1.1' })).status, 400, 'the target is a URL');
  const created = await post(app, 'headers', { target: 'http://1.1.1.1/' });
  t.equal(created.status, 202);
  t.equal(created.body.data.task_ids.length, 1, 'one node unless asked for more');
  const sent = hub.sent.at(-1)!;
  t.same(sent.message.check, { type: 'headers', target: 'http://1.1.1.1/', params: { timeout_ms: 10000, ip_version: 'auto' } });
  const task_id = created.body.data.task_id;
  let poll = (await (await app.request(`/v1/probe/tasks/${task_id}`)).json() as any).data;
  t.equal(poll.analysis, undefined, 'no analysis before a node answered');
  await deps.results.ingest(sent.node_id, [nodeResult(task_id, 'headers', 12)]);
  poll = (await (await app.request(`/v1/probe/tasks/${task_id}`)).json() as any).data;
  t.ok(probeTaskResultSchema.safeParse(poll).success, 'matches probeTaskResultSchema');
  t.match(poll, {
    probe_type: 'headers', status: 'completed', url: 'http://198.18.1.10/', final_url: 'https://198.18.1.10/',
    hops: [{ status_code: 301 }], headers: { server: 'nginx' }, security: { hsts: 'max-age=300' },
    analysis: { insecure: false, reasons: ['no_compression', 'no_cdn'] },
  });
  t.equal(poll.node_results[0].latency_ms, 12);
  const two = await post(app, 'headers', { target: 'https://1.1.1.1/', nodes: { count: 2 } });
  t.equal(two.body.data.task_ids.length, 2, 'nodes.count still applies');
});
