import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { newId } from '@vantage/shared-protocol';
import { loadConfig, type Config } from '../config/index.js';
import { startEmbeddedPostgres } from '../db/embedded.js';
import { migrate } from '../db/migrate.js';
import { connect, type Sql } from '../db/sql.js';
import { createLogger } from '../log.js';
import { testDatabase } from '../test-support/db.js';
import { insertDeliveries, type DeliveryRow } from './deliveries.db.js';
import { senderRegistry, type Sender, type SendOutcome } from './sender.js';
import { eventually } from './test-support.js';
import { createWakeSignal } from './wake.js';
import { createDeliveryWorker, type DeliveryWorker } from './worker.js';

interface Teardown { teardown(fn: () => unknown): void }

/** A sender on channel `test` that records every attempt and answers with `answer` (awaited). */
function testSender(answer: (d: DeliveryRow) => Promise<SendOutcome> | SendOutcome = () => ({ ok: true, status_code: 200, response_body: null, latency_ms: 1 })) {
  const attempts: Array<{ id: string; message_id: string; destination: string }> = [];
  const inflight = new Map<string, number>();
  const max = new Map<string, number>();
  const sender: Sender = {
    channel: 'test',
    async send(d) {
      attempts.push({ id: d.id, message_id: d.message_id, destination: d.destination });
      const n = (inflight.get(d.destination) ?? 0) + 1;
      inflight.set(d.destination, n);
      max.set(d.destination, Math.max(max.get(d.destination) ?? 0, n));
      try {
        return await answer(d);
      } finally {
        inflight.set(d.destination, inflight.get(d.destination)! - 1);
      }
    },
  };
  /** Most attempts under way at once to `destination`. */
  return { sender, attempts, max: (destination: string) => max.get(destination) ?? 0 };
}

function worker(t: Teardown, sql: Sql, config: Config, sender: Sender, instance_id: string, listen = true): DeliveryWorker {
  const w = createDeliveryWorker({ sql, log: createLogger(config.log_level), config, instance_id, senders: senderRegistry([sender]), signal: createWakeSignal(), listen });
  t.teardown(() => w.stop(0));
  return w;
}

function config(overrides: Partial<Config> = {}): Config {
  return loadConfig({}, { log_level: 'silent', delivery_poll_interval_ms: 50, delivery_retry_delays_ms: [20, 20, 20], ...overrides });
}

async function queue(sql: Sql, n: number, destination = 'd1'): Promise<string[]> {
  const rows = Array.from({ length: n }, () => ({ id: newId('delivery'), message_id: newId('message'), channel: 'test', destination, user_id: null, event_type: 'test', payload: { n } }));
  await insertDeliveries(sql, rows, 'vantage_delivery');
  return rows.map((r) => r.message_id);
}

async function statuses(sql: Sql): Promise<Record<string, number>> {
  const rows = await sql<{ status: string; n: number }[]>`SELECT status, count(*)::int AS n FROM deliveries GROUP BY status`;
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

t.test('two instances deliver every message exactly once', async (t) => {
  const { sql, url } = await testDatabase(t);
  // Each instance holds at most 100 messages at once, and no attempt answers before both instances
  // have begun one: the first instance cannot drain the queue before the second one starts.
  const cfg = config({ database_url: url, delivery_max_inflight: 100 });
  const started = new Set<string>();
  let open!: () => void;
  const gate = new Promise<void>((r) => { open = r; });
  const gated = (instance: string) => async (): Promise<SendOutcome> => {
    started.add(instance);
    if (started.size === 2) open();
    await gate;
    return { ok: true, status_code: 200, response_body: null, latency_ms: 5 };
  };
  const a = testSender(gated('a'));
  const b = testSender(gated('b'));
  for (let d = 0; d < 20; d++) await queue(sql, 20, `dest-${d}`);
  await worker(t, sql, cfg, a.sender, 'i-a').start();
  await worker(t, sql, cfg, b.sender, 'i-b').start();
  await eventually('all delivered', async () => ((await statuses(sql)).succeeded === 400 ? true : null));
  const ids = [...a.attempts, ...b.attempts].map((x) => x.message_id);
  t.equal(ids.length, 400, 'one attempt per message');
  t.equal(new Set(ids).size, 400, 'no message twice');
  t.ok(a.attempts.length > 0 && b.attempts.length > 0, `both instances sent (${a.attempts.length} + ${b.attempts.length})`);
});

t.test('the per-destination cap holds over all instances together', async (t) => {
  const { sql, url } = await testDatabase(t);
  const cfg = config({ database_url: url, delivery_destination_concurrency: 3 });
  // Both instances' senders feed one counter of attempts under way to the destination.
  const shared = testSender(() => new Promise<SendOutcome>((r) => setTimeout(() => r({ ok: true, status_code: 200, response_body: null, latency_ms: 5 }), 5)));
  await queue(sql, 120, 'one');
  await queue(sql, 5, 'other');
  await worker(t, sql, cfg, shared.sender, 'i-a').start();
  await worker(t, sql, cfg, shared.sender, 'i-b').start();
  await eventually('all delivered', async () => ((await statuses(sql)).succeeded === 125 ? true : null));
  t.equal(shared.attempts.length, 125);
  t.ok(shared.max('one') <= 3, `at most 3 attempts to one destination at once over both instances (saw ${shared.max('one')})`);
  t.ok(shared.max('one') >= 2, 'attempts to it do run in parallel');
});

t.test('a backlog for one slow destination does not hold up the others', async (t) => {
  const { sql, url } = await testDatabase(t);
  const cfg = config({ database_url: url, delivery_destination_concurrency: 2, delivery_max_inflight: 50 });
  let release!: () => void;
  const slow = new Promise<void>((r) => { release = r; });
  t.teardown(() => release());
  const s = testSender(async (d) => {
    if (d.destination === 'slow') await slow;
    return { ok: true, status_code: 200, response_body: null, latency_ms: 1 };
  });
  await queue(sql, 3000, 'slow'); // older than everything below
  const quick = await queue(sql, 20, 'quick');
  await worker(t, sql, cfg, s.sender, 'i-a').start();
  await eventually('the other destination delivered', () => (quick.every((id) => s.attempts.some((a) => a.message_id === id)) ? true : null), 30_000);
  t.equal(s.attempts.filter((a) => a.destination === 'slow').length, 2, 'the slow destination holds only its 2 slots');
  release();
});

t.test('retries on the schedule, then failed; not retriable fails at once', async (t) => {
  const { sql, url } = await testDatabase(t);
  const s = testSender((d) => (d.payload as { n: number }).n === 1
    ? { ok: false, retriable: true, error: 'HTTP 500', status_code: 500, response_body: 'no', latency_ms: 1 }
    : { ok: false, retriable: false, error: 'gone', status_code: null, response_body: null, latency_ms: 1 });
  await queue(sql, 1, 'retry');
  await insertDeliveries(sql, [{ id: newId('delivery'), message_id: newId('message'), channel: 'test', destination: 'fatal', user_id: null, event_type: 'test', payload: { n: 2 } }], 'vantage_delivery');
  await worker(t, sql, config({ database_url: url }), s.sender, 'i-a').start();
  await eventually('both failed', async () => ((await statuses(sql)).failed === 2 ? true : null));
  t.equal(s.attempts.filter((x) => x.destination === 'retry').length, 4, 'first attempt and three retries');
  t.equal(s.attempts.filter((x) => x.destination === 'fatal').length, 1, 'not retriable: one attempt');
  const log = await sql<{ attempt: number; outcome: string; status_code: number | null }[]>`
    SELECT a.attempt, a.outcome, a.status_code FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
    WHERE d.destination = 'retry' ORDER BY attempt`;
  t.same(log.map((r) => r.attempt), [1, 2, 3, 4]);
  t.ok(log.every((r) => r.outcome === 'failed' && r.status_code === 500));
});

t.test("a crashed instance's claim is taken over when its lease ends, logged as interrupted, sent with the same id", async (t) => {
  const { sql, url } = await testDatabase(t);
  const [message_id] = await queue(sql, 1, 'crash');
  await sql`UPDATE deliveries SET claimed_by = 'dead-instance', claimed_at = now() - interval '1 minute', claimed_until = now() + interval '300 milliseconds'`;
  const s = testSender();
  await worker(t, sql, config({ database_url: url }), s.sender, 'i-live').start();
  await eventually('delivered', async () => ((await statuses(sql)).succeeded === 1 ? true : null));
  t.same(s.attempts.map((a) => a.message_id), [message_id]);
  const log = await sql<{ attempt: number; outcome: string; error: string | null }[]>`SELECT attempt, outcome, error FROM delivery_attempts ORDER BY attempt`;
  t.match(log, [{ attempt: 1, outcome: 'interrupted', error: /dead-instance/ }, { attempt: 2, outcome: 'succeeded', error: null }]);
});

t.test('stop() releases attempts cut short; another instance sends them at once', async (t) => {
  const { sql, url } = await testDatabase(t);
  const cfg = config({ database_url: url });
  const [message_id] = await queue(sql, 1, 'cut');
  const hang = testSender((d) => new Promise(() => { void d; }));
  const first = worker(t, sql, cfg, hang.sender, 'i-first');
  await first.start();
  await eventually('attempt under way', () => (hang.attempts.length === 1 ? true : null));
  await first.stop(50);
  const s = testSender();
  await worker(t, sql, cfg, s.sender, 'i-second').start();
  await eventually('delivered by the other instance', async () => ((await statuses(sql)).succeeded === 1 ? true : null));
  t.same(s.attempts.map((a) => a.message_id), [message_id]);
});

t.test('embedded PGlite (one connection, no NOTIFY): the worker polls and delivers', async (t) => {
  const data_dir = await mkdtemp(join(tmpdir(), 'vantage-delivery-embedded-'));
  t.teardown(() => rm(data_dir, { recursive: true, force: true }));
  const pg = await startEmbeddedPostgres(data_dir);
  t.teardown(() => pg.close());
  const sql = connect(pg.url, 1);
  t.teardown(() => sql.end({ timeout: 5 }));
  await migrate(sql);
  const s = testSender();
  await worker(t, sql, config({ data_dir }), s.sender, 'i-embedded', false).start();
  const ids = await queue(sql, 20, 'embedded');
  await eventually('delivered', async () => ((await statuses(sql)).succeeded === 20 ? true : null));
  t.same(s.attempts.map((a) => a.message_id).sort(), ids.sort());
});
