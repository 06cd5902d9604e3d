import t from 'tap';
import { Hono } from 'hono';
import type { AppEnv } from '../env.js';
import { onError } from '../http/errors.js';
import { requestContext } from './request-context.js';
import { createLogger } from '../log.js';
import { LoadMonitor, loadShedding, shedReason, type LoadShedOptions } from './load-shed.js';
import { testApp } from '../test-support/app.js';
import { recordingHub } from '../probes/test-support.js';
import { testDatabase } from '../test-support/db.js';

const limits: LoadShedOptions = { shed_max_inflight_creations: 2, shed_max_inflight_requests: 4, shed_event_loop_delay_ms: 200, shed_retry_after_s: 3 };

t.test('which signal sheds which request', async (t) => {
  const load = (inflight: number, creations: number, delay = 0) => ({ inflight, creations, delay_ms: () => delay });
  t.equal(shedReason(load(1, 1), true, limits), null, 'under every limit');
  t.match(shedReason(load(2, 2), true, limits), { signal: 'inflight_creations', limit: 2, value: 2 });
  t.equal(shedReason(load(2, 2), false, limits), null, 'a poll is not a creation');
  t.match(shedReason(load(4, 0), false, limits), { signal: 'inflight_requests', limit: 4, value: 4 }, 'past the request limit everything waits');
  t.match(shedReason(load(0, 0, 250), true, limits), { signal: 'event_loop_delay', limit: 200, value: 250 });
  t.equal(shedReason(load(0, 0, 250), false, limits), null);
  t.match(shedReason({ ...load(0, 0), db_ms: () => 400 }, true, { ...limits, shed_db_latency_ms: 300 }), { signal: 'db_latency', limit: 300, value: 400 });
  t.equal(shedReason({ ...load(0, 0), db_ms: () => 400 }, false, { ...limits, shed_db_latency_ms: 300 }), null, 'polls go on');
  t.equal(shedReason({ ...load(0, 0), db_ms: () => 400 }, true, { ...limits, shed_db_latency_ms: 0 }), null, 'database signal off');
  t.match(shedReason({ ...load(0, 0), store_ms: () => 300 }, true, { ...limits, shed_result_latency_ms: 200 }), { signal: 'result_latency', limit: 200, value: 300 });
  t.equal(shedReason({ ...load(0, 0), store_ms: () => 300 }, false, { ...limits, shed_result_latency_ms: 200 }), null, 'polls go on');
  t.equal(shedReason({ ...load(0, 0), store_ms: () => 300 }, true, { ...limits, shed_result_latency_ms: 0 }), null, 'result signal off');
  t.equal(shedReason(load(99, 99, 9999), true, { ...limits, shed_max_inflight_creations: 0, shed_max_inflight_requests: 0, shed_event_loop_delay_ms: 0 }), null, '0 disables');
});

t.test('past the limit: 503 UNAVAILABLE with Retry-After, before the handler runs; admitted again once work drains', async (t) => {
  const monitor = new LoadMonitor();
  const app = new Hono<AppEnv>();
  app.use('*', requestContext(createLogger('silent')));
  app.use('*', loadShedding(limits, monitor));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => { release = resolve; });
  let handled = 0;
  app.post('/v1/probe/ping', async (c) => { handled++; await gate; return c.json({ ok: true }, 202); });
  app.get('/v1/probe/tasks/x', (c) => c.json({ ok: true }));
  app.onError(onError);

  const held = [app.request('/v1/probe/ping', { method: 'POST' }), app.request('/v1/probe/ping', { method: 'POST' })];
  while (handled < 2) await new Promise((r) => setTimeout(r, 5));
  const shed = await app.request('/v1/probe/ping', { method: 'POST' });
  t.equal(shed.status, 503);
  t.equal(shed.headers.get('retry-after'), '3');
  const body = (await shed.json()) as any;
  t.match(body.error, { code: 'UNAVAILABLE', details: { signal: 'inflight_creations', limit: 2, value: 2 } });
  t.match(body.error.message, /retry after 3 s/);
  t.equal(handled, 2, 'the shed request never reached its handler');
  t.equal((await app.request('/v1/probe/tasks/x')).status, 200, 'polls still answered');
  release();
  t.same((await Promise.all(held)).map((r) => r.status), [202, 202]);
  t.equal(monitor.inflight, 0);
  t.equal((await app.request('/v1/probe/ping', { method: 'POST' })).status, 202, 'admitted once the backlog drained');
});

t.test('the app sheds probe creation with the configured limits (VANTAGE_SHED_*)', async (t) => {
  const { app, sql } = await testApp(t, { hub: () => recordingHub(), config: { shed_max_inflight_creations: 0, shed_max_inflight_requests: 1 } });
  // One request held in flight: its rate-limit write waits on a table lock we hold.
  let release!: () => void;
  const held = new Promise<void>((resolve) => { release = resolve; });
  let locked!: () => void;
  const lockTaken = new Promise<void>((resolve) => { locked = resolve; });
  const locker = sql.begin(async (tx) => {
    await tx`LOCK TABLE rate_limit_counters IN ACCESS EXCLUSIVE MODE`;
    locked();
    await held;
  });
  await lockTaken;
  const first = app.request('/v1/probe/tasks/pt_01jd3k6w9z4q8r2t7v5x1y3b6c');
  for (let i = 0; ; i++) {
    const [w] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = 'rate_limit_counters'::regclass`;
    if (w!.n > 0) break;
    if (i > 600) throw new Error('the first request never waited');
    await new Promise((r) => setTimeout(r, 50));
  }
  const res = await app.request('/v1/probe/ping', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ target: '1.1.1.1' }) });
  t.equal(res.status, 503);
  t.equal(res.headers.get('retry-after'), '1');
  t.match(((await res.json()) as any).error, { code: 'UNAVAILABLE', details: { signal: 'inflight_requests', limit: 1 } });
  release();
  await locker;
  t.equal((await first).status, 404, 'the request in flight finished normally');
});

/** Keep the event loop busy for `ms` (what start-up work or a CPU-starved process does to it). */
function block(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) { /* busy */ }
}

/** Resolve once `cond()` holds, checking every 20 ms, or fail after `timeout_ms`. */
async function until(cond: () => boolean, timeout_ms: number, what: string): Promise<void> {
  const end = Date.now() + timeout_ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function delayApp(monitor: LoadMonitor): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use('*', requestContext(createLogger('silent')));
  app.use('*', loadShedding(limits, monitor));
  app.post('/v1/probe/ping', (c) => c.json({ ok: true }, 202));
  app.onError(onError);
  return app;
}

t.test('start-up work that keeps the event loop late for a while does not refuse the first probe creations', async (t) => {
  const monitor = new LoadMonitor();
  t.teardown(() => monitor.close());
  const app = delayApp(monitor);
  // Migrations, compiling, the embedded database's first queries: 300 ms blocks for 1.5 s.
  const started = Date.now();
  while (Date.now() - started < 1500) {
    block(300);
    await new Promise((r) => setImmediate(r));
  }
  const res = await app.request('/v1/probe/ping', { method: 'POST' });
  t.equal(res.status, 202, `admitted (${res.status === 503 ? JSON.stringify(await res.json()) : ''})`);
  t.equal(monitor.eventLoopDelayMs(), 0, 'one late window is not a sustained delay');
});

t.test('an event-loop delay sustained over every window sheds probe creation until it passes', async (t) => {
  const monitor = new LoadMonitor({ window_ms: 100, windows: 3 });
  t.teardown(() => monitor.close());
  const app = delayApp(monitor);
  // Late in every window: blocks of 250 ms with a turn of the loop between them, until the
  // monitor has judged 3 windows late (bounded: the machine may be slow, never too fast).
  await until(() => { block(250); return monitor.eventLoopDelayMs() >= limits.shed_event_loop_delay_ms; }, 60_000, 'a sustained delay');
  const res = await app.request('/v1/probe/ping', { method: 'POST' });
  t.equal(res.status, 503);
  t.match(((await res.json()) as any).error.details, { signal: 'event_loop_delay', limit: limits.shed_event_loop_delay_ms });
  // Quiet again: admitted once the late windows have passed.
  await until(() => monitor.eventLoopDelayMs() < limits.shed_event_loop_delay_ms, 60_000, 'the delay to pass');
  t.equal((await app.request('/v1/probe/ping', { method: 'POST' })).status, 202);
});

t.test('bad delay windows are refused when the monitor is built', async (t) => {
  t.throws(() => new LoadMonitor({ window_ms: 0, windows: 3 }), /bad delay windows/);
  t.throws(() => new LoadMonitor({ window_ms: 100, windows: 0 }), /bad delay windows/);
});

t.test('a database round trip slow over every window sheds probe creation, polls go on, and it passes', async (t) => {
  const { sql } = await testDatabase(t);
  let slow = true;
  // A real query on a real server: slow while `slow` (pg_sleep stands for a saturated database).
  const monitor = new LoadMonitor({ window_ms: 100, windows: 3 }, () => (slow ? sql`SELECT pg_sleep(0.4)` : sql`SELECT 1`));
  t.teardown(() => monitor.close());
  const db_limits = { ...limits, shed_event_loop_delay_ms: 0, shed_db_latency_ms: 150 };
  const app = new Hono<AppEnv>();
  app.use('*', requestContext(createLogger('silent')));
  app.use('*', loadShedding(db_limits, monitor));
  app.post('/v1/probe/ping', (c) => c.json({ ok: true }, 202));
  app.get('/v1/probe/tasks/x', (c) => c.json({ ok: true }));
  app.onError(onError);
  t.equal((await app.request('/v1/probe/ping', { method: 'POST' })).status, 202, 'nothing timed yet: admitted (the first creation starts the timing)');
  await until(() => monitor.dbLatencyMs() >= 150, 60_000, 'a sustained database latency');
  const res = await app.request('/v1/probe/ping', { method: 'POST' });
  t.equal(res.status, 503);
  t.equal(res.headers.get('retry-after'), '3');
  t.match(((await res.json()) as any).error, { code: 'UNAVAILABLE', details: { signal: 'db_latency', limit: 150 } });
  t.equal((await app.request('/v1/probe/tasks/x')).status, 200, 'a poll is admitted');
  slow = false;
  await until(() => monitor.dbLatencyMs() < 150, 60_000, 'the database to answer quickly again');
  t.equal((await app.request('/v1/probe/ping', { method: 'POST' })).status, 202);
});
