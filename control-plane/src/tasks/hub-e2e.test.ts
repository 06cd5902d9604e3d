import t from 'tap';
import { testApp } from '../test-support/app.js';
import { enrollNode, makeToken } from '../hub/test-harness.js';
import { nodeResult } from './test-support.js';

// The probe-task side through the real hub (hub/hub.ts) and real ws clients speaking the protocol:
// POST → task.run on the node's socket → result.batch → result.ack after commit → poll.
t.test('a probe runs on real connected nodes through the hub', async (t) => {
  const { app, sql, url } = await testApp(t);
  const one = await enrollNode(url, await makeToken(sql, { country_code: 'DE' }), 'probe-de');
  const two = await enrollNode(url, await makeToken(sql, { country_code: 'US' }), 'probe-us');
  t.teardown(() => { one.node.close(); two.node.close(); });

  const res = await app.request('/v1/probe/tcp', {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ target: '1.1.1.1:443', node_ids: [one.node_id, two.node_id] }),
  });
  t.equal(res.status, 202);
  const { task_id, task_ids } = ((await res.json()) as any).data;

  const run1 = await one.node.next('task.run');
  const run2 = await two.node.next('task.run');
  t.same([run1.task_id, run2.task_id].sort(), [...task_ids].sort());
  t.match(run1.check, { type: 'tcp', target: '1.1.1.1:443', params: { timeout_ms: 5000 } });
  one.node.send({ type: 'task.ack', task_id: run1.task_id, accepted: true });

  // Node one also tries to answer node two's task: refused, its own result acked.
  const mine = nodeResult(run1.task_id, 'tcp', 4);
  const forged = nodeResult(run2.task_id, 'tcp', 4);
  one.node.send({ type: 'result.batch', batch_id: 1, results: [mine, forged] });
  const ack = await one.node.next('result.ack');
  t.same(ack.result_ids, [mine.result_id, forged.result_id], 'the forged result is settled (acked) so the node drops it…');

  const failed = nodeResult(run2.task_id, 'tcp', 0, { success: false, error: 'connection refused', error_class: 'refused', output: { resolved_address: '1.1.1.1', port: 443, connect_ms: null, state: 'refused' } });
  two.node.send({ type: 'result.batch', batch_id: 7, results: [failed] });
  t.same((await two.node.next('result.ack')).result_ids, [failed.result_id]);

  const poll = ((await (await app.request(`/v1/probe/tasks/${task_id}`)).json()) as any).data;
  t.equal(poll.status, 'completed');
  t.same(poll.summary, { avg_response_ms: 4, p95_response_ms: 4, success_count: 1, fail_count: 1 });
  t.match(poll.node_results.find((n: any) => n.node_id === one.node_id), { node: { country: 'DE' }, success: true, state: 'open' });
  t.match(poll.node_results.find((n: any) => n.node_id === two.node_id), { success: false, error: 'connection refused', state: 'refused' });
});
