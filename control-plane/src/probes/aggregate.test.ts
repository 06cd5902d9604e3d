import t from 'tap';
import { newId, probeTaskResultSchema, type CheckSpec, type ProbeType } from '@vantage/shared-protocol';
import { aggregateGroup, groupStatus, latencyMs, pollutionDetected, summarise, type AggResult, type AggTask } from './aggregate.js';

t.test('latency_ms per probe type', async (t) => {
  const cases: Array<[ProbeType, Record<string, unknown> | null, number | null]> = [
    ['http', { response_ms: 120 }, 120],
    ['ping', { rtt_avg_ms: 1.5 }, 1.5],
    ['dns', { query_ms: 3 }, 3],
    ['tcp', { connect_ms: 0.42 }, 0.42],
    ['traceroute', { hops: [{ hop: 1, address: '198.18.0.1', rtts_ms: [1, 3] }, { hop: 2, address: '198.18.1.10', rtts_ms: [4, null, 6] }] }, 5],
    ['traceroute', { hops: [{ hop: 1, address: '198.18.0.1', rtts_ms: [2] }, { hop: 2, address: null, rtts_ms: [null, null] }] }, 2],
    ['traceroute', { hops: [] }, null],
    ['mtr', { hops: [{ hop: 1, avg_ms: 1.25 }, { hop: 2, avg_ms: 7.5 }, { hop: 3, avg_ms: null }] }, 7.5],
    ['smtp', { timing: { total_ms: 42.5 } }, 42.5],
    ['ntp', { delay_ms: 0.8 }, 0.8],
    ['headers', { response_ms: 33 }, 33],
    ['speedtest', { ttfb_ms: 2.5 }, 2.5],
    ['ssl', { audit: { audit_ms: 120 } }, 120],
    ['ssl', { audit: null }, null],
    ['http', { response_ms: null }, null],
    ['ping', null, null],
  ];
  for (const [type, output, want] of cases) t.equal(latencyMs(type, output), want, `${type} ${JSON.stringify(output)}`);
});

t.test('summary: avg and nearest-rank p95 over successful nodes, counts over all', async (t) => {
  const ok = (latency_ms: number | null) => ({ success: true, latency_ms });
  const bad = (latency_ms: number | null) => ({ success: false, latency_ms });
  const cases: Array<[string, Array<{ success: boolean; latency_ms: number | null }>, ReturnType<typeof summarise>]> = [
    ['empty', [], { avg_response_ms: null, p95_response_ms: null, success_count: 0, fail_count: 0 }],
    ['one', [ok(10)], { avg_response_ms: 10, p95_response_ms: 10, success_count: 1, fail_count: 0 }],
    ['failures excluded from times', [ok(10), ok(20), bad(1000)], { avg_response_ms: 15, p95_response_ms: 20, success_count: 2, fail_count: 1 }],
    ['all failed', [bad(5), bad(null)], { avg_response_ms: null, p95_response_ms: null, success_count: 0, fail_count: 2 }],
    // 20 values 1..20: rank ceil(0.95*20) = 19 → 19; avg 10.5
    ['twenty', Array.from({ length: 20 }, (_, i) => ok(20 - i)), { avg_response_ms: 10.5, p95_response_ms: 19, success_count: 20, fail_count: 0 }],
    // 21 values: rank ceil(19.95) = 20 → 20
    ['twenty-one', Array.from({ length: 21 }, (_, i) => ok(i + 1)), { avg_response_ms: 11, p95_response_ms: 20, success_count: 21, fail_count: 0 }],
    ['success without a time counts but has no time', [ok(null), ok(4)], { avg_response_ms: 4, p95_response_ms: 4, success_count: 2, fail_count: 0 }],
    ['avg rounded to 0.01 ms', [ok(1), ok(1), ok(2)], { avg_response_ms: 1.33, p95_response_ms: 2, success_count: 3, fail_count: 0 }],
  ];
  for (const [name, input, want] of cases) t.same(summarise(input), want, name);
});

const check: CheckSpec = { type: 'dns', target: 'example.test', params: { record_type: 'A', protocol: 'udp', timeout_ms: 5000 } };
function task(i: number, status: AggTask['status'] = 'queued', type: ProbeType = 'dns'): AggTask {
  return { id: `pt_${i}`, node_id: `n_${i}`, probe_type: type, target: 'example.test', check, status, created_at: new Date(0), finished_at: status === 'completed' || status === 'failed' ? new Date(1000 + i) : null };
}
function result(i: number, success: boolean, output: Record<string, unknown> | null = null): AggResult {
  return { task_id: `pt_${i}`, node_id: `n_${i}`, success, error: success ? null : 'boom', error_class: success ? null : 'timeout', output, finished_at: new Date(1000 + i) };
}

t.test('group status rule', async (t) => {
  const cases: Array<[string, AggTask[], AggResult[], string]> = [
    ['nothing started', [task(1), task(2)], [], 'queued'],
    ['a node accepted', [task(1, 'running'), task(2)], [], 'running'],
    ['one of two ended', [task(1, 'completed'), task(2)], [result(1, true)], 'running'],
    ['all ended, one success', [task(1, 'completed'), task(2, 'failed')], [result(1, true), result(2, false)], 'completed'],
    ['all ended, none succeeded', [task(1, 'failed'), task(2, 'failed')], [result(1, false), result(2, false)], 'failed'],
  ];
  for (const [name, tasks, results, want] of cases) t.equal(groupStatus(tasks, results), want, name);
});

const answers = (...values: string[]) => ({ rcode: 'NOERROR', answers: values.map((value) => ({ name: 'example.test', type: 'A', ttl: 60, value })) });

t.test('DNS pollution: answer sets differ between successful nodes', async (t) => {
  const cases: Array<[string, Array<Record<string, unknown>>, boolean]> = [
    ['none', [], false],
    ['single node', [answers('198.18.1.10')], false],
    ['same set, other order and TTL', [answers('198.18.1.10', '198.18.1.11'), { rcode: 'NOERROR', answers: [{ name: 'example.test', type: 'A', ttl: 5, value: '198.18.1.11' }, { name: 'example.test', type: 'A', ttl: 9, value: '198.18.1.10' }] }], false],
    ['one node sees another address', [answers('198.18.1.10'), answers('198.18.1.10'), answers('198.18.9.9')], true],
    ['subset is a difference', [answers('198.18.1.10', '198.18.1.11'), answers('198.18.1.10')], true],
    ['rcode differs', [answers(), { rcode: 'NXDOMAIN', answers: [] }], true],
    ['CNAME case and trailing dot ignored', [{ rcode: 'NOERROR', answers: [{ name: 'a', type: 'CNAME', ttl: 1, value: 'B.example.' }] }, { rcode: 'NOERROR', answers: [{ name: 'a', type: 'CNAME', ttl: 1, value: 'b.example' }] }], false],
  ];
  for (const [name, outputs, want] of cases) t.equal(pollutionDetected(outputs), want, name);
});

t.test('aggregateGroup builds the docs/api/probes.md DNS result', async (t) => {
  const ids = [newId('probe_task'), newId('probe_task'), newId('probe_task')];
  const nodes = [newId('node'), newId('node'), newId('node')];
  const tasks = ids.map((id, i) => ({ ...task(i, 'completed'), id, node_id: nodes[i]! }));
  tasks[2]!.status = 'failed';
  const results: AggResult[] = [
    { ...result(0, true, { server: 's', protocol: 'udp', truncated: false, authorities: [], query_ms: 4, ...answers('198.18.1.10') }), task_id: ids[0]!, node_id: nodes[0]! },
    { ...result(1, true, { server: 's', protocol: 'udp', truncated: false, authorities: [], query_ms: 8, ...answers('198.18.6.6') }), task_id: ids[1]!, node_id: nodes[1]! },
    { ...result(2, false), task_id: ids[2]!, node_id: nodes[2]! },
  ];
  const facts = [{ node_id: nodes[0]!, name: 'fra-1', asn: 64500, city: 'Frankfurt', country: 'DE', isp: 'Example GmbH' }];
  const out = aggregateGroup(ids[1]!, tasks, results, facts);
  t.ok(probeTaskResultSchema.safeParse(out).success, JSON.stringify(probeTaskResultSchema.safeParse(out).error?.issues ?? null));
  t.equal(out.task_id, ids[1], 'task_id is the polled id');
  t.same(out.task_ids, ids);
  t.equal(out.status, 'completed');
  t.equal(out.completed_at, new Date(1002).toISOString());
  t.equal(out.domain, 'example.test');
  t.equal(out.type, 'A');
  t.equal(out.pollution_detected, true);
  t.same(out.records_by_node?.map((r) => r.node_id), [nodes[0], nodes[1]], 'nodes with an output only');
  t.same(out.summary, { avg_response_ms: 6, p95_response_ms: 8, success_count: 2, fail_count: 1 });
  t.match(out.node_results[0], { node_id: nodes[0], node_name: 'fra-1', node: { asn: 64500, city: 'Frankfurt', country: 'DE', isp: 'Example GmbH' }, latency_ms: 4, rcode: 'NOERROR' });
  t.match(out.node_results[2], { node_id: nodes[2], node_name: nodes[2], node: { asn: null }, success: false, error: 'boom', error_class: 'timeout', latency_ms: null });
});
