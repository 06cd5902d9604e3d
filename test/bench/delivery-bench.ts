/**
 * Benchmark (not a test): the outbound delivery engine against a real local webhook receiver
 * (its own process, answering 204) and the real Postgres at TEST_DATABASE_URL (a scratch
 * database, dropped afterwards). Prints JSON with
 * - throughput: `--events` node.online events queued for `--endpoints` endpoints of one account
 *   while the worker is stopped, then the worker started: deliveries/s until every delivery is
 *   recorded as succeeded (claim, sign, POST, attempt log and state in Postgres for each);
 * - latency: events published one at a time at `--rate` per second for `--seconds` with the
 *   worker idle and listening (rate × endpoints deliveries/s: 500/s by default): event (publish
 *   call) to first attempt at the receiver, p50/p99.
 * Goals (docs/architecture/delivery.md): >= 1,000 deliveries/s; p99 < 500 ms.
 *
 *   npx tsx test/bench/delivery-bench.ts [--events 20000] [--endpoints 10] [--rate 50] [--seconds 10]
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { newId, newWebhookSecret } from '@vantage/shared-protocol';
import { loadConfig } from '../../control-plane/src/config/index.js';
import { createLogger } from '../../control-plane/src/log.js';
import { createOutbound } from '../../control-plane/src/outbound.js';
import { testDatabase } from '../../control-plane/src/test-support/db.js';
import { insertEndpoint } from '../../control-plane/src/webhooks/webhook-endpoints.db.js';
import { quantile } from './lib/stats.js';

const { values } = parseArgs({ options: {
  events: { type: 'string', default: '20000' }, endpoints: { type: 'string', default: '10' },
  rate: { type: 'string', default: '50' }, seconds: { type: 'string', default: '10' },
} });
const EVENTS = Number(values.events);
const ENDPOINTS = Number(values.endpoints);
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);

type Stats = { count: number; unique: number; delays_ms: number[] };
const receiver = fork(fileURLToPath(new URL('./lib/webhook-receiver.ts', import.meta.url)), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const ask = <T>(cmd: string) => new Promise<T>((resolve) => { receiver.once('message', (m) => resolve(m as T)); receiver.send({ cmd }); });
const port = await new Promise<number>((resolve) => receiver.once('message', (m) => resolve((m as { port: number }).port)));

const teardowns: Array<() => unknown> = [];
const t = { teardown: (fn: () => unknown) => void teardowns.unshift(fn) };
try {
  const { sql, url } = await testDatabase(t);
  const config = loadConfig({}, { database_url: url, log_level: 'silent', delivery_allow_cidrs: ['127.0.0.0/8'], instance_id: 'bench' });
  const user_id = newId('user');
  await sql`INSERT INTO users (id, email, password_hash) VALUES (${user_id}, 'bench@example.test', 'x')`;
  for (let i = 0; i < ENDPOINTS; i++) {
    await insertEndpoint(sql, { id: newId('webhook_endpoint'), user_id, team_id: null, url: `http://127.0.0.1:${port}/hook/${i}`, description: null, events: ['*'], secret: newWebhookSecret() }, 1000);
  }
  const outbound = createOutbound({ sql, log: createLogger('silent'), config });
  t.teardown(() => outbound.close(1000));
  const node = { id: 'n_01jd3k6w9z4q8r2t7v5x1y3b6c', name: 'bench', country: 'DE', region: null, city: null, asn: null, provider: null };
  const publish = () => outbound.events.publish({ type: 'node.online', user_id, data: { node, status: 'online', changed_at: new Date().toISOString() } });

  // Throughput: a backlog drained by one instance's worker.
  const per = Math.ceil(EVENTS / ENDPOINTS);
  for (let i = 0; i < per; i += 200) {
    await Promise.all(Array.from({ length: Math.min(200, per - i) }, publish));
  }
  const [{ queued }] = await sql<{ queued: number }[]>`SELECT count(*)::int AS queued FROM deliveries` as unknown as [{ queued: number }];
  process.stderr.write(`queued ${queued} deliveries; draining\n`);
  const started = performance.now();
  await outbound.start();
  for (;;) {
    const [{ n }] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM deliveries WHERE status <> 'pending'` as unknown as [{ n: number }];
    if (n >= queued) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const drain_s = (performance.now() - started) / 1000;
  const after = await ask<Stats>('stats');
  const [{ failed }] = await sql<{ failed: number }[]>`SELECT count(*)::int AS failed FROM deliveries WHERE status = 'failed'` as unknown as [{ failed: number }];
  await ask('reset');

  process.stderr.write(`drained in ${drain_s.toFixed(1)} s; latency phase\n`);
  // Latency: single events at a steady rate, the worker idle and woken by NOTIFY.
  const total = RATE * SECONDS;
  const gap_ms = 1000 / RATE;
  const t0 = performance.now();
  const pending: Array<Promise<unknown>> = [];
  for (let i = 0; i < total; i++) {
    const due = t0 + i * gap_ms;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(publish());
  }
  await Promise.all(pending);
  const deadline = Date.now() + 30_000;
  let lat = await ask<Stats>('stats');
  while (lat.count < total * ENDPOINTS && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    lat = await ask<Stats>('stats');
  }

  console.log(JSON.stringify({
    benchmark: 'delivery engine (one instance, local receiver process)',
    endpoints: ENDPOINTS,
    destination_concurrency: config.delivery_destination_concurrency,
    max_inflight: config.delivery_max_inflight,
    throughput: {
      deliveries: queued, seconds: Number(drain_s.toFixed(2)), deliveries_per_s: Math.round(queued / drain_s),
      received: after.count, unique_webhook_ids: after.unique, failed, goal_per_s: 1000,
    },
    latency: {
      events: total, rate_per_s: RATE, deliveries: lat.count,
      event_to_first_attempt_p50_ms: Number(quantile(lat.delays_ms, 0.5).toFixed(1)),
      event_to_first_attempt_p99_ms: Number(quantile(lat.delays_ms, 0.99).toFixed(1)),
      event_to_first_attempt_max_ms: Number(Math.max(...lat.delays_ms).toFixed(1)),
      goal_p99_ms: 500,
    },
  }, null, 2));
} finally {
  for (const fn of teardowns) await fn();
  receiver.send({ cmd: 'exit' });
}
