import t from 'tap';
import { ApiError, call, runProbe } from './client.js';
import { startTestNetwork, type TestNetwork } from './network.js';

/**
 * Every probe type through the public API only, fanned out to the three installed
 * agents of the e2e test network (test/e2e/network.ts), checked against what the targets host
 * really does (docs/architecture/test-network.md). One network is shared by all subtests.
 * Probes are anonymous: the control plane's allow-list covers the test ranges.
 */

t.setTimeout(300_000);

const net: TestNetwork = await startTestNetwork(t);
const api = net.api_url;
const all = { nodes: { count: net.nodes.length } };
const ids = net.nodes.map((n) => n.id).sort();
const byNode = <R extends { node_id: string }>(results: R[]) => new Map(results.map((r) => [r.node_id, r]));
const failed = (err: unknown) => (err instanceof ApiError ? err : null);

t.test('the node directory lists the three installed nodes online with their countries', async (t) => {
  const { items } = await call<{ items: Array<{ id: string; name: string; country: string; status: string }> }>(api, 'GET', '/v1/nodes?page_size=200');
  t.same(items.map((n) => n.id).sort(), ids, 'exactly the enrolled nodes');
  for (const node of net.nodes) {
    t.match(items.find((n) => n.id === node.id), { name: node.name, country: node.country, status: 'online' }, `${node.name} online in ${node.country}`);
  }
  const de = await call<{ items: Array<{ id: string }> }>(api, 'GET', '/v1/nodes?country=de');
  t.same(de.items.map((n) => n.id), [net.nodes[0]!.id], 'country filter');
});

t.test('http: fanned out to every node, status codes, redirects, https and IPv6', async (t) => {
  const origin = net.targets.http_origin;
  const [ok, missing, redirect, secure, delayed, v6] = await Promise.all([
    runProbe(api, 'http', { target: `${origin}/status/200`, ...all }),
    runProbe(api, 'http', { target: `${origin}/status/404`, ...all }),
    runProbe(api, 'http', { target: `${origin}/redirect`, ...all }),
    runProbe(api, 'http', { target: `${net.targets.https_origin}/`, ...all }),
    runProbe(api, 'http', { target: `${origin}/delay/50`, ...all }),
    runProbe(api, 'http', { target: `http://[${net.targets.v6}]/status/200`, ...all }),
  ]);

  t.equal(ok.status, 'completed');
  t.same(ok.node_results.map((r: { node_id: string }) => r.node_id).sort(), ids, 'one result per node');
  t.match(ok.summary, { success_count: 3, fail_count: 0 });
  t.type(ok.summary.avg_response_ms, 'number');
  for (const r of ok.node_results) {
    t.match(r, { success: true, error: null, status_code: 200, final_url: `${origin}/status/200`, resolved_address: net.targets.v4, headers: { server: 'vantage-e2e' } }, `${r.node_name}: 200`);
    t.match(r.timing, { dns_ms: Number, tcp_ms: Number, tls_ms: Number, ttfb_ms: Number, download_ms: Number });
    t.equal(r.tls, null, 'no TLS over http');
  }

  t.equal(missing.status, 'failed', 'every node saw a 404');
  t.match(missing.summary, { success_count: 0, fail_count: 3 });
  for (const r of missing.node_results) t.match(r, { success: false, status_code: 404, error: String }, `${r.node_name}: 404`);

  for (const r of redirect.node_results) {
    t.match(r, { success: true, status_code: 200, final_url: `${origin}/` }, `${r.node_name}: redirect followed`);
    t.match(r.redirects, [{ url: `${origin}/redirect`, status_code: 302, location: '/' }]);
  }

  t.equal(secure.status, 'completed', 'the test CA is trusted through NODE_EXTRA_CA_CERTS');
  for (const r of secure.node_results) {
    t.match(r, { success: true, status_code: 200, tls: { version: /^TLSv1\.[23]$/, cipher: /\w/ } }, `${r.node_name}: https verified`);
    t.match(r.certificate, { issuer: net.targets.ca_name, subject: 'targets.e2e.test' }, 'leaf issued by the test CA');
    t.ok(r.certificate.san.some((s: string) => s.includes(net.targets.v4)), 'IP SAN of the target');
  }

  // The server waits 50 ms before answering, so no node can see its first byte sooner.
  for (const r of delayed.node_results) t.ok(r.success && r.timing.ttfb_ms >= 45, `${r.node_name}: ttfb ${r.timing?.ttfb_ms} ms covers the 50 ms wait`);

  for (const r of v6.node_results) t.match(r, { success: true, status_code: 200, resolved_address: net.targets.v6 }, `${r.node_name}: over IPv6`);
});

t.test('tcp: open and refused ports', async (t) => {
  const [open, closed] = await Promise.all([
    runProbe(api, 'tcp', { target: net.targets.tcp_open, ...all }),
    runProbe(api, 'tcp', { target: net.targets.tcp_closed, ...all }),
  ]);
  t.equal(open.status, 'completed');
  for (const r of open.node_results) t.match(r, { success: true, state: 'open', port: 7000, connect_ms: Number, resolved_address: net.targets.v4 }, `${r.node_name}: open`);
  t.equal(closed.status, 'failed');
  for (const r of closed.node_results) t.match(r, { success: false, state: 'refused', port: 7001 }, `${r.node_name}: refused`);
});

t.test('dns: per-node answers and pollution detection', async (t) => {
  const { split, same } = net.targets;
  const [polluted, clean] = await Promise.all([
    runProbe(api, 'dns', { target: split.name, params: { record_type: 'A', server: net.targets.dns_server }, ...all }),
    runProbe(api, 'dns', { target: same.name, params: { record_type: 'A', server: net.targets.dns_server }, ...all }),
  ]);
  t.equal(polluted.pollution_detected, true, 'one node is answered differently');
  t.match(polluted, { domain: split.name, type: 'A', status: 'completed' });
  const answers = byNode(polluted.node_results as Array<{ node_id: string; rcode: string; answers: Array<{ type: string; value: string }> }>);
  net.nodes.forEach((node, i) => {
    const want = i === split.polluted_node ? split.polluted_answer : split.answer;
    t.match(answers.get(node.id), { success: true, rcode: 'NOERROR', answers: [{ name: split.name, type: 'A', value: want }] }, `${node.name} got ${want}`);
  });
  t.same(polluted.records_by_node.map((r: { node_id: string }) => r.node_id).sort(), ids, 'records_by_node lists every node');
  for (const entry of polluted.records_by_node) t.ok(entry.records.length > 0, 'with its records');

  t.equal(clean.pollution_detected, false, 'the same answer everywhere');
  for (const r of clean.node_results) t.match(r, { success: true, answers: [{ value: same.answer }] });
});

t.test('ping: three replies over IPv4 and IPv6, TTL 62 after two routers', async (t) => {
  const params = { count: 3, interval_ms: 100 };
  const [v4, v6] = await Promise.all([
    runProbe(api, 'ping', { target: net.targets.v4, params, ...all }),
    runProbe(api, 'ping', { target: net.targets.v6, params, ...all }),
  ]);
  for (const [task, address] of [[v4, net.targets.v4], [v6, net.targets.v6]] as const) {
    t.equal(task.status, 'completed');
    for (const r of task.node_results) {
      t.match(r, { success: true, resolved_address: address, packets_sent: 3, packets_received: 3, packet_loss: 0, rtt_avg_ms: Number }, `${r.node_name}: 3/3 from ${address}`);
      // IPv6 replies carry no hop limit: raw-socket does not expose it (node-agent icmp/packet.ts).
      const ttl = address === net.targets.v4 ? 62 : null;
      t.same(r.packets.map((p: { ttl: number | null }) => p.ttl), [ttl, ttl, ttl], ttl ? '64 minus two routers' : 'no hop limit over IPv6');
    }
  }
});

t.test('traceroute: r1, then r2, then the target (IPv4 and IPv6)', async (t) => {
  const params = { max_hops: 6, timeout_ms: 1000 };
  const [v4, v6] = await Promise.all([
    runProbe(api, 'traceroute', { target: net.targets.v4, params, ...all }),
    runProbe(api, 'traceroute', { target: net.targets.v6, params, ...all }),
  ]);
  for (const [task, family] of [[v4, 'v4'], [v6, 'v6']] as const) {
    t.equal(task.status, 'completed');
    const results = byNode(task.node_results as Array<{ node_id: string; destination_reached: boolean; hops: Array<{ hop: number; address: string | null }> }>);
    for (const node of net.nodes) {
      const r = results.get(node.id);
      t.equal(r?.destination_reached, true, `${node.name}: destination reached over ${family}`);
      t.same(r?.hops.map((h) => [h.hop, h.address]), [[1, node.gateway[family]], [2, net.targets.r2[family]], [3, net.targets[family]]], `${node.name}: its gateway on r1, r2, the target`);
    }
  }
});

t.test('mtr: ICMP, UDP and TCP modes through the installed agents, r1, r2 and the target', async (t) => {
  const params = { count: 3, interval_ms: 200, timeout_ms: 1000, max_hops: 6, hostnames: false };
  const cases = [
    { protocol: 'icmp', family: 'v4' },
    { protocol: 'udp', family: 'v4' },
    { protocol: 'tcp', family: 'v4', port: 7000 }, // open: the target answers SYN-ACK
    { protocol: 'tcp', family: 'v6', port: 7001 }, // closed: the target answers RST
  ] as const;
  const tasks = await Promise.all(cases.map((c) => runProbe(api, 'mtr', {
    target: net.targets[c.family], params: { ...params, protocol: c.protocol, ...('port' in c ? { port: c.port } : {}) }, ...all,
  })));
  cases.forEach((c, i) => {
    const task = tasks[i]!;
    t.equal(task.status, 'completed', `${c.protocol} ${c.family}`);
    const results = byNode(task.node_results as Array<{ node_id: string; protocol: string; rounds: number; hops: Array<{ hop: number; address: string | null; asn: number | null; received: number }> }>);
    for (const node of net.nodes) {
      const r = results.get(node.id);
      t.match(r, { protocol: c.protocol, rounds: 3 }, `${node.name}: ${c.protocol} ${c.family}`);
      t.same(r?.hops.map((h) => [h.hop, h.address, h.asn]), [[1, node.gateway[c.family], null], [2, net.targets.r2[c.family], null], [3, net.targets[c.family], null]], `${node.name}: its gateway, r2, the target (test addresses have no ASN)`);
      t.equal(r?.hops.at(-1)?.received, 3, `${node.name}: the target answered every round`);
    }
  });
});

t.test('node selection', async (t) => {
  const [de, two] = await Promise.all([
    runProbe(api, 'tcp', { target: net.targets.tcp_open, nodes: { countries: ['DE'] } }),
    runProbe(api, 'tcp', { target: net.targets.tcp_open, node_ids: [net.nodes[1]!.id, net.nodes[2]!.id] }),
  ]);
  t.equal(de.task_ids.length, 1, 'countries: [DE] selects one node');
  t.match(de.node_results, [{ node_id: net.nodes[0]!.id, node_name: net.nodes[0]!.name, success: true }]);
  t.same(two.node_results.map((r: { node_id: string }) => r.node_id).sort(), [net.nodes[1]!.id, net.nodes[2]!.id].sort(), 'node_ids: exactly those nodes');

  const nowhere = await call(api, 'POST', '/v1/probe/tcp', { target: net.targets.tcp_open, nodes: { countries: ['AQ'] } }).catch(failed);
  t.match(nowhere, { status: 422, code: 'PROBE_TOO_FEW_NODES' }, 'no node in the country');
  const unknown = await call(api, 'POST', '/v1/probe/tcp', { target: net.targets.tcp_open, node_ids: ['n_00000000000000000000000000'] }).catch(failed);
  t.match(unknown, { status: 404, code: 'NODE_NOT_FOUND' }, 'unknown node id');
});

t.test('the private-target rule: outside the allow-list, anonymous callers get 422', async (t) => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ['http', { target: 'http://127.0.0.1/' }],
    ['ping', { target: '10.1.2.3' }],
    ['tcp', { target: '[::1]:22' }],
    ['dns', { target: 'example.com', params: { server: '192.168.1.1' } }],
  ];
  for (const [type, body] of cases) {
    const err = await call(api, 'POST', `/v1/probe/${type}`, { ...body, ...all }).catch(failed);
    t.match(err, { status: 422, code: 'PROBE_TARGET_INVALID' }, `${type} ${JSON.stringify(body)} refused`);
  }
  const allowed = await runProbe(api, 'tcp', { target: net.targets.tcp_open, ...all });
  t.equal(allowed.task_ids.length, 3, 'while the test range in the allow-list is accepted');
});

t.test('the fault controls other tests build on: kill/start an agent, cut/restore a link, crash/restart the control plane', async (t) => {
  const a0 = net.nodes[0]!;
  const first_pid = a0.pid();
  await net.killAgent(0);
  t.equal(a0.pid(), null, 'agent 0 is gone');
  await net.waitStatus('offline', [a0.id]);
  await net.startAgent(0);
  t.not(a0.pid(), null, 'started again through its service');
  t.not(a0.pid(), first_pid, 'as a new process');
  await net.waitOnline([a0.id]);
  t.pass('and back online');

  const curl = (host: string) => net.exec(host, ['curl', '-sS', '-o', '/dev/null', '-m', '2', '-w', '%{http_code}', `${net.targets.http_origin}/`]);
  t.equal((await curl('a1')).stdout, '200', 'a1 reaches the targets');
  await net.cutLink(1);
  t.not((await curl('a1')).code, 0, 'not while its link is cut');
  t.equal((await curl('a2')).stdout, '200', 'the other hosts still do');
  await net.restoreLink(1);
  t.equal((await curl('a1')).stdout, '200', 'and again once restored');

  await net.stopControlPlane('SIGKILL');
  const down = await fetch(`${api}/v1/nodes`).then(() => 'up', () => 'down');
  t.equal(down, 'down', 'the control plane is down after kill -9');
  await net.startControlPlane(); // and waits for every agent to reconnect
  const after = await runProbe(api, 'tcp', { target: net.targets.tcp_open, ...all });
  t.match(after.summary, { success_count: 3, fail_count: 0 }, 'every agent reconnected and probes again');
});
