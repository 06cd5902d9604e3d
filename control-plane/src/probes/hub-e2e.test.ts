import t from 'tap';
import { testApp } from '../test-support/app.js';
import { enrollNode, helloNode, makeToken } from '../hub/test-harness.js';
import { newId } from '@vantage/shared-protocol';
import { insertTasks } from './tasks.db.js';
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

// A task.run can miss its node: sent while the node was reconnecting, or relayed through NOTIFY to
// an instance that died before delivering. A queued (never acknowledged) task whose deadline is
// ahead is sent again when the node says hello; an acknowledged or ended one is not.
t.test('tasks that missed their node are re-sent at hello', async (t) => {
  const { sql, url } = await testApp(t);
  const first = await enrollNode(url, await makeToken(sql, { country_code: 'DE' }), 'probe-de');
  const node_id = first.node_id;
  first.node.close();
  await first.node.closed;
  const check = { type: 'tcp', target: '1.1.1.1:443', params: { timeout_ms: 5000, ip_version: 'auto' } };
  const task = (id: string, ordinal: number, grace_ms: number) => ({ id, group_id: lost, ordinal, node_id, probe_type: 'tcp', target: check.target, check, timeout_ms: 5000, grace_ms, requester_user_id: null });
  const lost = newId('probe_task');
  const overdue = newId('probe_task');
  await insertTasks(sql, [task(lost, 0, 30_000), task(overdue, 1, -10_000)] as never);

  const again = await helloNode(url, first.credential, node_id);
  t.teardown(() => again.close());
  const run = await again.next('task.run');
  t.equal(run.task_id, lost, 'the queued task is delivered on reconnect');
  t.match(run.check, check);
  again.send({ type: 'task.ack', task_id: lost, accepted: true });
  again.send({ type: 'result.batch', batch_id: 1, results: [nodeResult(lost, 'tcp', 3)] });
  t.equal((await again.next('result.ack')).result_ids.length, 1);

  const third = await helloNode(url, first.credential, node_id);
  t.teardown(() => third.close());
  third.send({ type: 'heartbeat', sent_at: Date.now() });
  const next = await Promise.race([third.next('task.run'), new Promise((r) => setTimeout(() => r('none'), 1500))]);
  t.equal(next, 'none', 'nothing is re-sent once the task ended, and a task past its deadline is left to the sweeper');
});
