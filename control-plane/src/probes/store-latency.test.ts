/**
 * The probe pipeline's latency signal: node results that wait to be stored (here behind a row
 * lock another transaction holds on their task, as a saturated database would hold them) make
 * the sink's store latency climb, and load shedding refuse probe creations while polls go on.
 */
import t from 'tap';
import { Hono } from 'hono';
import type { AppEnv } from '../env.js';
import { onError } from '../http/errors.js';
import { createLogger } from '../log.js';
import { requestContext } from '../middleware/request-context.js';
import { LoadMonitor, loadShedding } from '../middleware/load-shed.js';
import { testApp } from '../test-support/app.js';
import { addNode, nodeResult, recordingHub } from './test-support.js';
import { WriteLatency } from './store-latency.js';

async function until(cond: () => boolean, timeout_ms: number, what: string): Promise<void> {
  const end = Date.now() + timeout_ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

t.test('WriteLatency: the slowest settled write since the last take, an open one by its age', async (t) => {
  const w = new WriteLatency();
  t.equal(w.take(), 0, 'nothing written');
  const slow = w.start();
  await new Promise((r) => setTimeout(r, 60));
  t.ok(w.take() >= 50, 'an open write counts for its age');
  slow();
  t.ok(w.take() >= 50, 'settled: its whole time, once');
  t.equal(w.take(), 0, 'then afresh');
  const quick = w.start();
  quick();
  quick();
  t.ok(w.take() < 50, 'a second settle call changes nothing');
});

t.test('results held from their commit past the budget shed probe creation; polls go on; admitted once they commit', async (t) => {
  const hub = recordingHub();
  const { app, deps, sql } = await testApp(t, { hub: () => hub });
  const node = await addNode(sql, { name: 'node-a', country: 'DE' });
  const res = await app.request('/v1/probe/tcp', {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ target: '1.1.1.1:443', node_ids: [node] }),
  });
  t.equal(res.status, 202);
  const task_id = hub.sent.at(-1)!.message.task_id;

  const monitor = new LoadMonitor({ window_ms: 100, windows: 3 }, undefined, () => deps.results.storeLatencyMs!());
  t.teardown(() => monitor.close());
  const shed = new Hono<AppEnv>();
  shed.use('*', requestContext(createLogger('silent')));
  shed.use('*', loadShedding({ shed_max_inflight_creations: 0, shed_max_inflight_requests: 0, shed_event_loop_delay_ms: 0, shed_retry_after_s: 2, shed_result_latency_ms: 150 }, monitor));
  shed.post('/v1/probe/ping', (c) => c.json({ ok: true }, 202));
  shed.get('/v1/probe/tasks/x', (c) => c.json({ ok: true }));
  shed.onError(onError);

  // Another transaction holds the task's row: the result's store waits for it.
  let release!: () => void;
  const released = new Promise<void>((resolve) => { release = resolve; });
  let locked!: () => void;
  const holding = new Promise<void>((resolve) => { locked = resolve; });
  const holder = sql.begin(async (tx) => {
    await tx`SELECT id FROM probe_tasks WHERE id = ${task_id} FOR UPDATE`;
    locked();
    await released;
  });
  await holding;
  const result = nodeResult(task_id, 'tcp', 2);
  const stored = deps.results.ingest(node, [result]);
  await until(() => monitor.resultLatencyMs() >= 150, 30_000, 'a sustained result-store latency');
  const refused = await shed.request('/v1/probe/ping', { method: 'POST' });
  t.equal(refused.status, 503);
  t.equal(refused.headers.get('retry-after'), '2');
  t.match(((await refused.json()) as any).error, { code: 'UNAVAILABLE', details: { signal: 'result_latency', limit: 150 } });
  t.equal((await shed.request('/v1/probe/tasks/x')).status, 200, 'a poll is admitted');

  release();
  await holder;
  t.same(await stored, { stored: [result.result_id], rejected: [] }, 'the held result was stored once the lock went');
  await until(() => monitor.resultLatencyMs() < 150, 30_000, 'stores to be quick again');
  t.equal((await shed.request('/v1/probe/ping', { method: 'POST' })).status, 202);
});
