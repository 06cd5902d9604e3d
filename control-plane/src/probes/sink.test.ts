import t from 'tap';
import { newId, type ResultEnvelope } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import { testApp } from '../test-support/app.js';
import { REJECT, createResultSink } from './sink.js';
import { startTaskSweeper, sweepOverdueTasks } from './sweeper.js';
import { addNode, nodeResult, recordingHub } from './test-support.js';
import { waitFor } from '../hub/test-harness.js';
import { sseFrames } from '../test-support/sse.js';

interface Teardown { teardown(fn: () => unknown): void }

async function setup(t: Teardown, config: Partial<Config> = {}) {
  const hub = recordingHub();
  const app = await testApp(t, { hub: () => hub, config });
  const a = await addNode(app.sql, { name: 'node-a', country: 'DE' });
  const b = await addNode(app.sql, { name: 'node-b', country: 'US' });
  /** POST a tcp probe on nodes a and b; @returns the task ids per node and the group's task_id */
  const probe = async (params: Record<string, unknown> = {}) => {
    const res = await app.app.request('/v1/probe/tcp', {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ target: '1.1.1.1:443', node_ids: [a, b], params }),
    });
    const { data } = await res.json() as { data: { task_id: string; task_ids: string[] } };
    const of = (node: string) => hub.sent.filter((s) => s.node_id === node).at(-1)!.message.task_id;
    return { task_id: data.task_id, ta: of(a), tb: of(b) };
  };
  const poll = async (task_id: string) => ((await (await app.app.request(`/v1/probe/tasks/${task_id}`)).json()) as { data: any }).data;
  return { ...app, hub, a, b, probe, poll };
}

t.test('ingest: ownership, idempotence, one result per task', async (t) => {
  const { deps, a, b, probe, poll } = await setup(t);
  const { task_id, ta, tb } = await probe();
  const sink = deps.results;

  const forged = nodeResult(tb, 'tcp', 1);
  t.same(await sink.ingest(a, [forged]), { stored: [], rejected: [{ result_id: forged.result_id, reason: REJECT.not_assigned }] }, 'node a cannot answer node b\'s task');
  const ghost = nodeResult(newId('probe_task'), 'tcp', 1);
  t.match(await sink.ingest(a, [ghost]), { stored: [], rejected: [{ reason: REJECT.not_assigned }] }, 'unknown task');
  const wrongType = nodeResult(ta, 'ping', 1);
  t.match(await sink.ingest(a, [wrongType]), { stored: [], rejected: [{ reason: /does not match/ }] });
  t.equal((await poll(task_id)).node_results.length, 0, 'nothing stored from the rejected results');

  const good = nodeResult(ta, 'tcp', 3);
  t.same(await sink.ingest(a, [good]), { stored: [good.result_id], rejected: [] });
  t.same(await sink.ingest(a, [good]), { stored: [good.result_id], rejected: [] }, 'redelivery after a lost ack: acked again');
  t.same(await sink.ingest(a, [good, good]), { stored: [good.result_id], rejected: [] }, 'duplicate inside one batch');
  const second = nodeResult(ta, 'tcp', 9);
  t.same(await sink.ingest(a, [second]), { stored: [], rejected: [{ result_id: second.result_id, reason: REJECT.already_ended }] }, 'a different second result is refused');

  let p = await poll(task_id);
  t.equal(p.node_results.length, 1, 'stored once');
  t.match(p.node_results[0], { node_id: a, latency_ms: 3, connect_ms: 3, state: 'open' });
  t.equal(p.summary.success_count, 1);

  // A mixed batch: each result is judged on its own.
  const mine = nodeResult(tb, 'tcp', 5);
  const stolen = nodeResult(ta, 'tcp', 5);
  const r = await sink.ingest(b, [stolen, mine]);
  t.same(r.stored, [mine.result_id]);
  t.same(r.rejected.map((x) => x.result_id), [stolen.result_id]);
  p = await poll(task_id);
  t.equal(p.status, 'completed');
  t.same(p.summary, { avg_response_ms: 4, p95_response_ms: 5, success_count: 2, fail_count: 0 });
});

t.test('monitor results: only through the check store, never for a monitor not placed on the node; task acks move the task', async (t) => {
  const { deps, a, b, probe, poll } = await setup(t);
  const monitorResult = (monitor_id: string) => ({ ...nodeResult(newId('probe_task'), 'http', 40), task_id: null, monitor_id, scheduled_at: new Date().toISOString() }) as ResultEnvelope;
  const stored = async () => (await deps.sql`SELECT (SELECT count(*) FROM checks) + (SELECT count(*) FROM check_batches) + (SELECT count(*) FROM check_rounds) AS n`)[0]!.n as number;
  // No monitor is placed on any node: whatever monitor id a node names, nothing is written.
  const forged = Array.from({ length: 50 }, () => monitorResult(newId('monitor')));
  const out = await deps.results.ingest(a, forged);
  t.same(out.stored, []);
  t.same(out.rejected, forged.map((r) => ({ result_id: r.result_id, reason: REJECT.monitor_not_assigned })));
  t.equal(Number(await stored()), 0, 'no check and no round written');
  t.equal((await deps.sql`SELECT to_regclass('monitor_results') AS t`)[0]!.t, null, 'no second store of monitor results');
  // A sink without a check store (probe tasks only) refuses every monitor result.
  const tasksOnly = createResultSink({ sql: deps.sql, log: deps.log });
  const orphan = monitorResult(newId('monitor'));
  t.same(await tasksOnly.ingest(b, [orphan]), { stored: [], rejected: [{ result_id: orphan.result_id, reason: REJECT.monitor_not_assigned }] });
  t.equal(Number(await stored()), 0);

  const { task_id, ta, tb } = await probe();
  await deps.results.taskAck(b, { type: 'task.ack', task_id: ta, accepted: false, reason: 'forged' });
  t.equal((await poll(task_id)).status, 'queued', 'an ack for another node\'s task is ignored');
  await deps.results.taskAck(a, { type: 'task.ack', task_id: ta, accepted: true });
  // Acks are written within ACK_WRITE_DELAY_MS (task-acks.ts), not at once.
  await waitFor(async () => (await poll(task_id)).status === 'running');
  await deps.results.taskAck(b, { type: 'task.ack', task_id: tb, accepted: false, reason: 'queue full (256 tasks)' });
  const p = await poll(task_id);
  t.match(p.node_results, [{ node_id: b, success: false, error: 'node rejected the task: queue full (256 tasks)', error_class: 'rejected' }]);
  const late = nodeResult(tb, 'tcp', 1);
  t.match(await deps.results.ingest(b, [late]), { rejected: [{ reason: REJECT.already_ended }] }, 'a result after the rejection is refused');
});

t.test('SSE delivers results as they are stored; the sweeper fails a silent node and ends the task', async (t) => {
  const { deps, url, sql, a, b, probe, poll } = await setup(t, { task_grace_ms: 0, task_sweep_interval_ms: 100 });
  const { task_id, ta, tb } = await probe({ timeout_ms: 1000 });
  const res = await fetch(`${url}/v1/probe/tasks/${task_id}/stream`);
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /text\/event-stream/);
  const frames = sseFrames(res);

  const first = nodeResult(ta, 'tcp', 2);
  await deps.results.ingest(a, [first]);
  const f1 = (await frames.next()).value!;
  t.match(f1, { event: 'node_result', id: first.result_id, data: { task_id: ta, node_id: a, success: true, latency_ms: 2 } }, 'node a\'s result arrives while b is still out');

  // Node b never answers: past timeout_ms (1000) + grace (0) the sweeper records a failure.
  const stop = startTaskSweeper({ sql, log: deps.log, config: deps.config });
  t.teardown(stop);
  const f2 = (await frames.next()).value!;
  t.match(f2, { event: 'node_result', data: { node_id: b, success: false, error_class: 'timeout', error: /no answer from the node/ } });
  const done = (await frames.next()).value!;
  t.match(done, { event: 'done', data: { task_id, status: 'completed', summary: { success_count: 1, fail_count: 1 } } });
  t.equal((await poll(task_id)).status, 'completed');
  t.equal(await sweepOverdueTasks(sql), 0, 'nothing left to sweep');

  // The node was only late (link cut, slow node): what it really measured replaces our timeout,
  // and the stream, still open after done for that reason, sends it and the group as it now is.
  const late = nodeResult(tb, 'tcp', 7);
  t.same(await deps.results.ingest(b, [late]), { stored: [late.result_id], rejected: [] }, 'a late node result is stored');
  const replaced = (await frames.next()).value!;
  t.match(replaced, { event: 'node_result', id: late.result_id, data: { task_id: tb, node_id: b, success: true, latency_ms: 7, error: null } }, 'the replacement is streamed after done');
  const update = (await frames.next()).value!;
  t.match(update, { event: 'update', data: { task_id, status: 'completed', completed_at: done.data.completed_at, summary: { success_count: 2, fail_count: 0 } } });
  t.ok(Date.parse(update.data.updated_at) > Date.parse(done.data.updated_at), 'updated_at moved; completed_at did not');
  t.equal((await frames.next()).done, true, 'no replaceable result left: the stream ends');
  const after = await poll(task_id);
  t.match(after.node_results.find((r: any) => r.node_id === b), { success: true, latency_ms: 7, error: null });
  t.same(after.summary, { ...after.summary, success_count: 2, fail_count: 0 });
  t.equal(after.updated_at, update.data.updated_at);
  const second = nodeResult(tb, 'tcp', 9);
  t.match(await deps.results.ingest(b, [second]), { rejected: [{ reason: REJECT.already_ended }] }, 'but never replaces a node result');

  const resumed = sseFrames(await fetch(`${url}/v1/probe/tasks/${task_id}/stream`, { headers: { 'last-event-id': first.result_id } }));
  const again = [];
  for await (const f of resumed) again.push(f);
  t.same(again.map((f) => f.event), ['node_result', 'done'], 'Last-Event-ID: only what came after, and nothing is left to replace');
  t.equal(again[0]!.data.node_id, b);

  const missing = await fetch(`${url}/v1/probe/tasks/${newId('probe_task')}/stream`);
  t.equal(missing.status, 404);
  t.equal(((await missing.json()) as any).error.code, 'PROBE_JOB_NOT_FOUND');
});

t.test('sweepers of several instances end each overdue task once', async (t) => {
  const { sql, probe, poll } = await setup(t, { task_grace_ms: 0 });
  const groups = [await probe({ timeout_ms: 1000 }), await probe({ timeout_ms: 1000 }), await probe({ timeout_ms: 1000 })];
  // Wait for the deadline with the database's clock (the sweeper compares against now()).
  let ended = 0;
  while (ended < 6) {
    const counts = await Promise.all([sweepOverdueTasks(sql), sweepOverdueTasks(sql), sweepOverdueTasks(sql)]);
    ended += counts.reduce((x, y) => x + y, 0);
    if (ended < 6) await new Promise((r) => setTimeout(r, 100));
  }
  t.equal(await sweepOverdueTasks(sql), 0, 'nothing left');
  t.equal(ended, 6, 'six tasks, each ended by exactly one sweeper');
  for (const g of groups) {
    const p = await poll(g.task_id);
    t.equal(p.status, 'failed', 'every node silent: failed');
    t.equal(p.node_results.length, 2);
  }
});
