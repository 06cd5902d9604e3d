import t from 'tap';
import { newId } from '@vantage/shared-protocol';
import { loadConfig } from '../config/index.js';
import { connect } from '../db/sql.js';
import { createLogger } from '../log.js';
import { createEventPublisher } from '../webhooks/publisher.js';
import { testDatabase } from '../test-support/db.js';
import { acknowledgeEvent, alertEnginePass, resolveEvent } from './engine.js';
import { at, seedWorld, type PolicySpec, type World } from './engine-fixtures.js';

/*
 * Alert event sequences on a clock the test moves: rounds judged, engine passes, acks and manual
 * resolves at given seconds; then the notifications queued (as `level:channel:kind`) and the
 * events' statuses.
 */

type Step =
  | ['round', number, 'up' | 'degraded' | 'down']
  | ['pass', number]
  | ['ack', number]
  | ['resolve', number]
  | ['silence', number, number]
  | ['maintenance', number, number];

interface Case {
  name: string;
  policy: PolicySpec;
  timezone?: string;
  steps: Step[];
  sent: string[];
  events: Array<{ status: string; suppressed?: string | null; type?: string }>;
}

const CASES: Case[] = [
  {
    name: 'first notification after delay_s, resolved to the paged channel when up again',
    policy: { delay_s: 120 },
    steps: [['round', 0, 'down'], ['pass', 0], ['pass', 119], ['pass', 120], ['pass', 130], ['round', 180, 'up'], ['pass', 180], ['pass', 240]],
    sent: ['0:first:firing', '0:first:resolved'],
    events: [{ status: 'resolved', suppressed: null, type: 'down' }],
  },
  {
    name: 'recovery before the delay pages nobody',
    policy: { delay_s: 300 },
    steps: [['round', 0, 'down'], ['pass', 0], ['round', 60, 'up'], ['pass', 60], ['pass', 400]],
    sent: [],
    events: [{ status: 'resolved' }],
  },
  {
    name: 'recovery_n consecutive down rounds fire; an up round in between starts over',
    policy: { recovery_n: 3 },
    steps: [['round', 0, 'down'], ['pass', 0], ['round', 60, 'up'], ['pass', 60], ['round', 120, 'down'], ['pass', 120],
      ['round', 180, 'down'], ['pass', 180], ['round', 240, 'down'], ['pass', 240]],
    sent: ['0:first:firing'],
    events: [{ status: 'firing' }],
  },
  {
    name: 'escalation without ack: each level after_seconds after the previous, all told of the resolution',
    policy: { levels: [300, 600] },
    steps: [['round', 0, 'down'], ['pass', 0], ['pass', 299], ['pass', 300], ['pass', 899], ['pass', 900], ['pass', 5000],
      ['round', 6000, 'up'], ['pass', 6000]],
    sent: ['0:first:firing', '1:level1:firing', '2:level2:firing', '0:first:resolved', '1:level1:resolved', '2:level2:resolved'],
    events: [{ status: 'resolved' }],
  },
  {
    name: 'ack stops escalation and tells the channels already paged',
    policy: { levels: [300] },
    steps: [['round', 0, 'down'], ['pass', 0], ['ack', 100], ['pass', 300], ['pass', 1000], ['round', 1200, 'up'], ['pass', 1200]],
    sent: ['0:first:firing', '0:first:acknowledged', '0:first:resolved'],
    events: [{ status: 'resolved' }],
  },
  {
    name: 'manual resolve: told once, no new event while the same outage goes on',
    policy: {},
    steps: [['round', 0, 'down'], ['pass', 0], ['resolve', 60], ['round', 60, 'down'], ['pass', 60], ['pass', 120]],
    sent: ['0:first:firing', '0:first:resolved'],
    events: [{ status: 'resolved' }],
  },
  {
    // T0 + 1 h = 13:00 UTC = 22:00 in Tokyo: inside 22:00-07:00 there, outside it in UTC.
    name: 'mute window across midnight in the owner\'s zone (Asia/Tokyo) records the event, sends nothing',
    policy: { mute: ['22:00', '07:00'] },
    timezone: 'Asia/Tokyo',
    steps: [['round', 3600, 'down'], ['pass', 3600], ['round', 4000, 'up'], ['pass', 4000]],
    sent: [],
    events: [{ status: 'resolved', suppressed: 'mute' }],
  },
  {
    name: 'outside the mute window (21:00 Tokyo) the page goes out',
    policy: { mute: ['22:00', '07:00'] },
    timezone: 'Asia/Tokyo',
    steps: [['round', 0, 'down'], ['pass', 0]],
    sent: ['0:first:firing'],
    events: [{ status: 'firing', suppressed: null }],
  },
  {
    name: 'silence: recorded, nothing sent while it lasts; an escalation after it ends pages',
    policy: { levels: [900] },
    steps: [['silence', -60, 600], ['round', 0, 'down'], ['pass', 0], ['pass', 900]],
    sent: ['1:level1:firing'],
    events: [{ status: 'firing', suppressed: 'silence' }],
  },
  {
    name: 'maintenance window: recorded, nothing sent',
    policy: {},
    steps: [['maintenance', -60, 600], ['round', 0, 'down'], ['pass', 0], ['round', 300, 'up'], ['pass', 300]],
    sent: [],
    events: [{ status: 'resolved', suppressed: 'maintenance' }],
  },
  {
    name: 'degraded does not fire by default',
    policy: {},
    steps: [['round', 0, 'degraded'], ['pass', 0], ['pass', 60]],
    sent: [],
    events: [],
  },
  {
    name: 'degraded fires when the policy says so',
    policy: { fire_on_degraded: true },
    steps: [['round', 0, 'degraded'], ['pass', 0]],
    sent: ['0:first:firing'],
    events: [{ status: 'firing', type: 'degraded' }],
  },
];

async function play(w: World, steps: Step[]): Promise<void> {
  for (const s of steps) {
    const eventId = async () => (await w.events()).at(-1)!.id;
    switch (s[0]) {
      case 'round': await w.round(s[1], s[2]); break;
      case 'pass': await w.pass(s[1]); break;
      case 'ack': await acknowledgeEvent(w.deps, w.user_id, await eventId(), at(s[1])); break;
      case 'resolve': await resolveEvent(w.deps, w.user_id, await eventId(), at(s[1])); break;
      case 'silence':
        await w.sql`INSERT INTO alert_silences (id, user_id, monitor_id, starts_at, ends_at) VALUES (${newId('alert_silence')}, ${w.user_id}, ${w.monitor_id}, ${at(s[1])}, ${at(s[2])})`;
        break;
      case 'maintenance':
        await w.sql`INSERT INTO maintenance_windows (id, user_id, scope_type, scope_ids, starts_at, ends_at) VALUES (${newId('maintenance_window')}, ${w.user_id}, 'monitor', ${[w.monitor_id]}, ${at(s[1])}, ${at(s[2])})`;
        break;
    }
  }
}

t.test('alert event sequences', async (t) => {
  const { sql } = await testDatabase(t);
  for (const c of CASES) {
    await t.test(c.name, async (t) => {
      const w = await seedWorld(sql, c.policy, { timezone: c.timezone });
      await play(w, c.steps);
      t.same(await w.sent(), c.sent, 'notifications');
      t.match(await w.events(), c.events, 'events');
      t.equal((await w.events()).length, c.events.length, 'event count');
    });
  }
});

t.test('a restarted or second engine on the same database repeats no notification', async (t) => {
  const { sql, url } = await testDatabase(t);
  const w = await seedWorld(sql, { levels: [300] });
  await w.round(0, 'down');
  await w.pass(0);
  // Another instance (its own connections) runs the same passes at once, then again after a restart.
  const other = connect(url, 2);
  t.teardown(() => other.end({ timeout: 5 }));
  const deps2 = { ...w.deps, sql: other };
  await Promise.all([alertEnginePass(w.deps, at(300)), alertEnginePass(deps2, at(300)), alertEnginePass(deps2, at(301))]);
  // As if a crash had lost the step's bookkeeping but not its deliveries: the keys keep them single.
  await sql`UPDATE alert_events SET next_level = 0, next_due_at = ${at(0)}, notified_at = NULL WHERE user_id = ${w.user_id}`;
  await alertEnginePass(deps2, at(302));
  t.same(await w.sent(), ['0:first:firing', '1:level1:firing'], 'each page queued once');
  const [dup] = await sql`SELECT count(*)::int AS n FROM deliveries WHERE user_id = ${w.user_id} GROUP BY message_id HAVING count(*) > 1`;
  t.notOk(dup, 'no duplicate delivery rows');
});

t.test('one pass opens every failing monitor\'s event, past a page of candidates that do not fire yet', async (t) => {
  const { sql } = await testDatabase(t);
  const waiting: World[] = [];
  // 110 monitors whose one down round is below recovery_n 2 come first (earlier state changes).
  for (let i = 0; i < 110; i++) waiting.push(await seedWorld(sql, { recovery_n: 2 }));
  for (const [i, w] of waiting.entries()) await w.round(i * 0.001, 'down');
  const firing: World[] = [];
  for (let i = 0; i < 15; i++) firing.push(await seedWorld(sql, {}));
  for (const w of firing) await w.round(1, 'down');
  const r = await alertEnginePass(firing[0]!.deps, at(2));
  t.equal(r.opened, 15, 'all 15 opened in one pass');
  t.equal(r.steps, 15, 'and paged');
  t.equal((await sql`SELECT count(*)::int AS n FROM alert_events`)[0]!.n, 15, 'none for the monitors below their threshold');
});

t.test('alert.* webhook events: each opened and resolved event reaches its owner\'s subscribed endpoints, pages of several owners in one pass', async (t) => {
  const { sql } = await testDatabase(t);
  const config = loadConfig({}, { database_url: '', log_level: 'silent', delivery_notify_channel: 'vantage_delivery_test_alerts' });
  const events = createEventPublisher({ sql, log: createLogger('silent'), config });
  const worlds = [await seedWorld(sql), await seedWorld(sql), await seedWorld(sql)];
  // The first two accounts have an endpoint (every event; firing only), the third none.
  const endpoint = async (user_id: string, types: string[]) => {
    const id = newId('webhook_endpoint');
    await sql`INSERT INTO webhook_endpoints (id, user_id, url, events, secret) VALUES (${id}, ${user_id}, 'http://127.0.0.1:9/hook', ${types}, 'whsec_dGVzdA==')`;
    return id;
  };
  const all = await endpoint(worlds[0]!.user_id, ['*']);
  const firingOnly = await endpoint(worlds[1]!.user_id, ['alert.firing']);
  const deps = { ...worlds[0]!.deps, events };
  const webhooks = () => sql<Array<{ destination: string; event_type: string; monitor_id: string }>>`
    SELECT destination, event_type, payload->'data'->'alert_event'->>'monitor_id' AS monitor_id FROM deliveries
    WHERE channel = 'webhook' ORDER BY destination, event_type`;
  for (const w of worlds) await w.round(0, 'down');
  t.match(await alertEnginePass(deps, at(0)), { opened: 3, steps: 3 });
  const sorted = <T extends { destination: string; event_type: string }>(xs: T[]) => xs.sort((a, b) => (a.destination + a.event_type < b.destination + b.event_type ? -1 : 1));
  t.same(await webhooks(), sorted([
    { destination: all, event_type: 'alert.firing', monitor_id: worlds[0]!.monitor_id },
    { destination: firingOnly, event_type: 'alert.firing', monitor_id: worlds[1]!.monitor_id },
  ]), 'one alert.firing per account with a subscribed endpoint');
  for (const w of worlds) await w.round(60, 'up');
  await alertEnginePass(deps, at(60));
  t.same(await webhooks(), sorted([
    { destination: all, event_type: 'alert.firing', monitor_id: worlds[0]!.monitor_id },
    { destination: all, event_type: 'alert.resolved', monitor_id: worlds[0]!.monitor_id },
    { destination: firingOnly, event_type: 'alert.firing', monitor_id: worlds[1]!.monitor_id },
  ]), 'alert.resolved only where subscribed');
});
