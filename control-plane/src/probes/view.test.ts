import t from 'tap';
import { newId } from '@vantage/shared-protocol';
import { testApp } from '../test-support/app.js';
import { storeTaskResult } from './tasks.db.js';
import { GroupViews, loadTaskResult } from './view.js';
import { addNode, nodeResult, recordingHub } from './test-support.js';

// The polling answer is one state of the group. A result that commits while a poll is reading the
// group used to be seen without the task it ended (read by an earlier query): the group looked
// ended, its last task had no finished_at, and completed_at read 1970-01-01T00:00:00.000Z.
t.test('a result committed during a poll is seen together with its task', async (t) => {
  const hub = recordingHub();
  const { app, sql } = await testApp(t, { hub: () => hub });
  const a = await addNode(sql, { country: 'DE' });
  const b = await addNode(sql, { country: 'US' });
  const res = await app.request('/v1/probe/tcp', {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ target: '1.1.1.1:443', node_ids: [a, b] }),
  });
  const { task_id, task_ids } = ((await res.json()) as any).data;

  // Hold probe_results until the poll waits on it, then store both nodes' results and commit.
  let release!: () => void;
  const held = new Promise<void>((resolve) => { release = resolve; });
  let locked!: () => void;
  const lockTaken = new Promise<void>((resolve) => { locked = resolve; });
  const writer = sql.begin(async (tx) => {
    await tx`LOCK TABLE probe_results IN ACCESS EXCLUSIVE MODE`;
    locked();
    await held;
    for (const [i, node_id] of [a, b].entries()) {
      const r = nodeResult(task_ids[i], 'tcp', 6);
      await storeTaskResult(tx, {
        result_id: r.result_id, task_id: task_ids[i], group_id: task_id, node_id, from_node: true, success: true,
        error: null, error_class: null, output: r.output, started_at: r.started_at, finished_at: r.finished_at,
      });
    }
  });
  await lockTaken;
  const poll = app.request(`/v1/probe/tasks/${task_id}`);
  for (let i = 0; ; i++) {
    const [w] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = 'probe_results'::regclass`;
    if (w!.n > 0) break;
    if (i > 600) throw new Error('the poll never waited on probe_results');
    await new Promise((r) => setTimeout(r, 50));
  }
  release();
  await writer;
  const data = ((await (await poll).json()) as any).data;
  t.equal(data.status, 'completed', 'both results are seen');
  t.not(data.completed_at, new Date(0).toISOString(), 'completed_at is not 1970');
  t.ok(Date.parse(data.completed_at) >= Date.parse(data.created_at), `completed_at ${data.completed_at} is after created_at ${data.created_at}`);
  t.ok(Date.parse(data.updated_at) >= Date.parse(data.completed_at), 'updated_at: the last result stored');
});

t.test('unknown ids: 404 PROBE_JOB_NOT_FOUND', async (t) => {
  const { app } = await testApp(t, { hub: () => recordingHub() });
  const res = await app.request(`/v1/probe/tasks/${newId('probe_task')}`);
  t.equal(res.status, 404);
  t.equal(((await res.json()) as any).error.code, 'PROBE_JOB_NOT_FOUND');
});

// A poll reads only what changed since the group's last poll; whatever happened in between, its
// answer must be the one a fresh read of the group gives.
t.test('polls kept in memory answer as a fresh read would: new results, a replacement, an out-of-order commit, a start', async (t) => {
  const hub = recordingHub();
  const { app, sql, deps } = await testApp(t, { hub: () => hub });
  const nodes = [await addNode(sql, { country: 'DE' }), await addNode(sql, { country: 'US' }), await addNode(sql, { country: 'JP' })];
  const res = await app.request('/v1/probe/tcp', {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ target: '1.1.1.1:443', node_ids: nodes }),
  });
  const { task_id, task_ids } = ((await res.json()) as any).data;
  const views = new GroupViews(sql);
  const same = async (what: string) => {
    const polled = (await views.load(task_ids[1]))!;
    const fresh = (await loadTaskResult(sql, task_ids[1]))!;
    t.same(polled, fresh, what);
    return polled;
  };
  t.equal((await same('queued')).status, 'queued');
  await sql`UPDATE probe_tasks SET status = 'running' WHERE id = ${task_ids[0]}`;
  t.equal((await same('a task started')).status, 'running');
  await deps.results.ingest(nodes[0]!, [nodeResult(task_ids[0], 'tcp', 4)]);
  t.equal((await same('one new result')).node_results.length, 1);

  // Node 1's result takes a seq first but commits after node 2's.
  let release!: () => void;
  const held = new Promise<void>((resolve) => { release = resolve; });
  let inserted!: () => void;
  const insertedP = new Promise<void>((resolve) => { inserted = resolve; });
  const late = sql.begin(async (tx) => {
    const r = nodeResult(task_ids[1], 'tcp', 5);
    await storeTaskResult(tx, {
      result_id: r.result_id, task_id: task_ids[1], group_id: task_id, node_id: nodes[1]!, from_node: true, success: true,
      error: null, error_class: null, output: r.output, started_at: r.started_at, finished_at: r.finished_at,
    });
    inserted();
    await held;
  });
  await insertedP;
  await deps.results.ingest(nodes[2]!, [nodeResult(task_ids[2], 'tcp', 0, { success: false, error: 'refused', error_class: 'refused', output: { resolved_address: '1.1.1.1', port: 443, connect_ms: null, state: 'refused' } })]);
  t.equal((await same('the later seq first')).node_results.length, 2);
  release();
  await late;
  const all = await same('the earlier seq committed last');
  t.equal(all.status, 'completed');
  t.equal(all.node_results.length, 3);

  // The control plane's failure for node 2 is replaced by the node's own result.
  await sql`UPDATE probe_results SET replaceable = true, from_node = false WHERE task_id = ${task_ids[2]}`;
  await deps.results.ingest(nodes[2]!, [nodeResult(task_ids[2], 'tcp', 7)]);
  const replaced = await same('a replaced result');
  t.match(replaced.node_results[2], { node_id: nodes[2], success: true, latency_ms: 7 });
  t.same(await same('unchanged'), replaced);
});
