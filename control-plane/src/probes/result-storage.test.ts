import t from 'tap';
import type { DnsOutput, ResultEnvelope } from '@vantage/shared-protocol';
import { enrollNode, makeToken } from '../hub/test-harness.js';
import { testApp } from '../test-support/app.js';
import { REJECT } from './sink.js';
import { addNode, nodeResult, recordingHub } from './test-support.js';

// A result the control plane cannot store, or must not believe, costs only itself: the rest of its
// batch is stored, and it is settled (acked) so the node drops it instead of resending it forever.

const txtAnswer = (value: string): DnsOutput => ({
  server: '1.1.1.1:53', protocol: 'udp', rcode: 'NOERROR', query_ms: 4, truncated: false,
  answers: [{ name: 'txt.example.test', type: 'TXT', ttl: 60, value }], authorities: [],
});

async function setup(t: { teardown(fn: () => unknown): void }) {
  const hub = recordingHub();
  const app = await testApp(t, { hub: () => hub });
  const node = await addNode(app.sql, { country: 'DE' });
  const create = async (type: 'dns' | 'tcp', body: Record<string, unknown>) => {
    const res = await app.app.request(`/v1/probe/${type}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...body, node_id: node }) });
    const { data } = (await res.json()) as { data: { task_id: string } };
    return data.task_id;
  };
  const poll = async (task_id: string) => ((await (await app.app.request(`/v1/probe/tasks/${task_id}`)).json()) as { data: any }).data;
  return { ...app, node, create, poll };
}

t.test('a DNS answer with NUL and lone surrogates is stored sanitised, with the rest of its batch', async (t) => {
  const { deps, node, create, poll } = await setup(t);
  const dnsTask = await create('dns', { target: 'txt.example.test', params: { record_type: 'TXT', server: '1.1.1.1' } });
  const tcpTask = await create('tcp', { target: '1.1.1.1:443' });
  const dirty = nodeResult(dnsTask, 'dns', 4, { output: txtAnswer('"a\u0000b" "\ud800"'), error: null } as Partial<ResultEnvelope>);
  const refusedTask = await create('tcp', { target: '1.1.1.1:22' });
  const clean = nodeResult(tcpTask, 'tcp', 3);
  const refused = nodeResult(refusedTask, 'tcp', 0, { success: false, error: 'banner x\udc00', error_class: 'refused', output: { resolved_address: '1.1.1.1', port: 22, connect_ms: null, state: 'refused' } } as Partial<ResultEnvelope>);

  const out = await deps.results.ingest(node, [dirty, clean, refused]);
  t.same(out.rejected, []);
  t.same(out.stored.sort(), [dirty.result_id, clean.result_id, refused.result_id].sort(), 'the whole batch is stored');
  const p = await poll(dnsTask);
  t.equal(p.node_results[0].answers[0].value, '"a\ufffdb" "\ufffd"', 'NUL and the lone surrogate became U+FFFD');
  t.equal((await poll(refusedTask)).node_results[0].error, 'banner x\ufffd');
  t.equal((await poll(tcpTask)).status, 'completed');
});

t.test('a result the database refuses is rejected alone and ends its task at once', async (t) => {
  const { deps, node, create, poll } = await setup(t);
  const badTask = await create('tcp', { target: '1.1.1.1:443' });
  const goodTask = await create('tcp', { target: '1.1.1.1:80' });
  // A date Postgres cannot hold (year 0). The hub's schema now refuses it before the sink; a
  // node of an older version that sent it made the whole batch fail, again and again.
  const bad = nodeResult(badTask, 'tcp', 3, { started_at: '0000-01-01T00:00:00.000Z' });
  const otherTask = await create('tcp', { target: '1.1.1.1:22' });
  const good = nodeResult(goodTask, 'tcp', 5);
  const other = nodeResult(otherTask, 'tcp', 6);

  const out = await deps.results.ingest(node, [bad, good, other]);
  t.same(out.stored.sort(), [good.result_id, other.result_id].sort(), 'the others are stored');
  t.match(out.rejected, [{ result_id: bad.result_id, reason: new RegExp(`^${REJECT.unstorable}: .*out of range`) }]);
  t.match(await poll(goodTask), { status: 'completed', node_results: [{ success: true, latency_ms: 5 }] });
  t.match(await poll(badTask), { status: 'failed', node_results: [{ success: false, error_class: 'internal', error: "the node's result could not be stored" }] });
  t.same(await deps.results.ingest(node, [good]), { stored: [good.result_id], rejected: [] }, 'still idempotent');
});

t.test('through the hub: impossible measurements are refused alone and acked, unstorable text is stored sanitised', async (t) => {
  const { app, sql, url } = await testApp(t);
  const { node, node_id } = await enrollNode(url, await makeToken(sql, { country_code: 'DE' }), 'probe-de');
  t.teardown(() => node.close());
  const task = async (target: string) => {
    const res = await app.request('/v1/probe/tcp', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ target, node_id }) });
    const { data } = (await res.json()) as { data: { task_id: string } };
    await node.next('task.run');
    return data.task_id;
  };
  const t1970 = await task('1.1.1.1:443');
  const tNegative = await task('1.1.1.1:80');
  const tText = await task('1.1.1.1:22');
  const old = nodeResult(t1970, 'tcp', 3, { started_at: '1970-01-01T00:00:00.000Z', finished_at: '1970-01-01T00:00:00.003Z' });
  const negative = nodeResult(tNegative, 'tcp', -7);
  const text = nodeResult(tText, 'tcp', 0, { success: false, error: 'refused by \u0000 banner \ud800', error_class: 'refused', output: { resolved_address: '1.1.1.1', port: 22, connect_ms: null, state: 'refused' } } as Partial<ResultEnvelope>);

  node.send({ type: 'result.batch', batch_id: 5, results: [old, negative, text] });
  const error = await node.next('error');
  t.match(error, { code: 'VALIDATION_FAILED', ref: '5', message: /results\[0\].*started_at.*results\[1\].*connect_ms/ });
  const ack = await node.next('result.ack');
  t.same([...ack.result_ids].sort(), [old.result_id, negative.result_id, text.result_id].sort(), 'all three settled: the node drops them');

  const poll = async (id: string) => ((await (await app.request(`/v1/probe/tasks/${id}`)).json()) as { data: any }).data;
  t.equal((await poll(t1970)).node_results.length, 0, 'the 1970 result was not published');
  t.equal((await poll(tNegative)).node_results.length, 0, 'nor the negative connect time');
  t.match((await poll(tText)).node_results, [{ success: false, error: 'refused by \ufffd banner \ufffd', state: 'refused' }]);
});
