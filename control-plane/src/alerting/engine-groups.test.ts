import t from 'tap';
import { newId } from '@vantage/shared-protocol';
import { connect, type Sql } from '../db/sql.js';
import { seedUser } from '../checks/test-support.js';
import { testDatabase } from '../test-support/db.js';
import pino from 'pino';
import { loadConfig } from '../config/index.js';
import { alertEnginePass, startAlertEngine } from './engine.js';
import { at, channel, seedWorld, type World } from './engine-fixtures.js';

/*
 * Alert-group collapsing on a clock the test moves: pages of monitors of one group that fall
 * within its wait leave as one message per channel listing every monitor; a page after the wait
 * opens the next message; monitors outside the group and PagerDuty channels are paged as before;
 * a flush run by a restarted or second engine sends the message once; a pass slower than the
 * wait it opened does not leave the flush to the engine's next interval.
 */

async function group(sql: Sql, user_id: string, group_by: string, group_value: string, wait_seconds: number): Promise<string> {
  const id = newId('alert_group');
  await sql`INSERT INTO alert_groups (id, user_id, name, group_by, group_value, wait_seconds) VALUES (${id}, ${user_id}, ${`${group_value} fleet`}, ${group_by}, ${group_value}, ${wait_seconds})`;
  return id;
}

/** The deliveries queued for `channel_id`, oldest first: message id and the monitors a grouped one lists. */
async function deliveries(sql: Sql, channel_id: string): Promise<Array<{ message_id: string; monitors: string[] | null; title: string }>> {
  const rows = await sql<Array<{ message_id: string; payload: { title: string; group?: { monitors: Array<{ name: string }> } } }>>`
    SELECT message_id, payload FROM deliveries WHERE destination = ${channel_id} ORDER BY created_at, message_id`;
  return rows.map((r) => ({ message_id: r.message_id, title: r.payload.title, monitors: r.payload.group ? r.payload.group.monitors.map((m) => m.name) : null }));
}

t.test('pages within the wait collapse into one message per channel; a later one opens the next; others unaffected; restart-safe', async (t) => {
  const { sql, url } = await testDatabase(t);
  const user_id = await seedUser(sql);
  const ops = await channel(sql, user_id, 'ops');
  const pd = await channel(sql, user_id, 'pd', 'pagerduty');
  const group_id = await group(sql, user_id, 'monitor_prefix', 'web-', 60);
  const world = (name: string, first = ops) => seedWorld(sql, {}, { user_id, first, monitor_name: name });
  const [a, b, c, d] = [await world('web-a'), await world('web-b'), await world('web-c'), await world('web-d')];
  const outside = await world('db-x');
  const paged = await world('web-pd', pd);

  await a.round(0, 'down');
  await outside.round(0, 'down');
  await paged.round(0, 'down');
  await a.pass(0);
  t.same((await deliveries(sql, ops)).map((x) => x.monitors), [null], 'the monitor outside the group is paged at once, alone');
  t.equal((await deliveries(sql, pd)).length, 1, 'PagerDuty is paged at once: each event its own incident');
  await b.round(20, 'down');
  await b.pass(20);
  await c.round(50, 'down');
  await c.pass(50);
  await a.pass(59);
  t.equal((await deliveries(sql, ops)).length, 1, 'nothing of the group before its wait is over');

  // The instance that gathered the pages is gone; another (own connections) and a restarted one flush at once.
  const other = connect(url, 2);
  t.teardown(() => other.end({ timeout: 5 }));
  const r = await Promise.all([alertEnginePass({ ...a.deps, sql: other }, at(60)), alertEnginePass(a.deps, at(60)), alertEnginePass({ ...a.deps, sql: other }, at(61))]);
  t.equal(r.reduce((n, x) => n + x.grouped, 0), 1, 'one flush queued the message');
  let sent = await deliveries(sql, ops);
  t.equal(sent.length, 2);
  t.same(sent[1]!.monitors, ['web-a', 'web-b', 'web-c'], 'one message listing the three monitors');
  t.match(sent[1]!.title, /^\[down\] 3 monitors of group "web- fleet": web-a, web-b, web-c$/);
  t.match(sent[1]!.message_id, /^alert-group:\d+$/);

  const [row] = await sql`SELECT delivery_id FROM alert_event_notifications n JOIN alert_events e ON e.id = n.event_id WHERE e.monitor_id = ${a.monitor_id}`;
  const [delivery] = await sql`SELECT id FROM deliveries WHERE message_id = ${sent[1]!.message_id}`;
  t.equal(row!.delivery_id, delivery!.id, 'each gathered page points at the one delivery');

  await d.round(90, 'down');
  await d.pass(90);
  await d.pass(149);
  t.equal((await deliveries(sql, ops)).length, 2, 'the fourth monitor, after the window, waits for its own');
  await d.pass(150);
  sent = await deliveries(sql, ops);
  t.same(sent.map((x) => x.monitors), [null, ['web-a', 'web-b', 'web-c'], ['web-d']], 'a new message for the fourth');

  // Resolutions go per event to the channels the group message paged.
  await a.round(200, 'up');
  await a.pass(200);
  t.same((await deliveries(sql, ops)).slice(3).map((x) => x.message_id.split(':').slice(1).join(':')), [`0:${ops}:resolved`]);
  const [dups] = await sql`SELECT count(*)::int AS n FROM deliveries GROUP BY destination, message_id HAVING count(*) > 1`;
  t.notOk(dups, 'no delivery twice');
  t.equal((await sql`SELECT count(*)::int AS n FROM alert_group_batches WHERE group_id = ${group_id} AND flushed_at IS NULL`)[0]!.n, 0, 'no batch left open');
});

t.test('a monitor that recovers within the wait is withdrawn; a batch left empty sends nothing', async (t) => {
  const { sql } = await testDatabase(t);
  const user_id = await seedUser(sql);
  const ops = await channel(sql, user_id, 'ops');
  await group(sql, user_id, 'tag', 'edge', 30);
  const worlds: World[] = [];
  for (const name of ['cdn-1', 'cdn-2']) {
    const w = await seedWorld(sql, {}, { user_id, first: ops, monitor_name: name });
    await sql`UPDATE monitors SET tags = '{edge}' WHERE id = ${w.monitor_id}`;
    worlds.push(w);
  }
  const [one, two] = worlds as [World, World];
  await one.round(0, 'down');
  await two.round(0, 'down');
  await one.pass(0);
  await one.round(10, 'up');
  await one.pass(10);
  await one.pass(30);
  t.same((await deliveries(sql, ops)).map((x) => x.monitors), [['cdn-2']], 'only the monitor still failing is listed');
  t.equal((await sql`SELECT count(*)::int AS n FROM alert_event_notifications WHERE suppressed = 'withdrawn'`)[0]!.n, 1, 'the other page recorded as withdrawn');
  const resolved = await sql`SELECT message_id FROM deliveries WHERE message_id LIKE '%:resolved'`;
  t.equal(resolved.length, 0, 'nobody told of a recovery they were never paged for');

  await two.round(40, 'up');
  await two.pass(40);
  t.equal((await sql`SELECT count(*)::int AS n FROM deliveries WHERE message_id LIKE '%:resolved'`)[0]!.n, 1, 'the listed monitor\'s recovery is told');
  await one.round(50, 'down');
  await one.pass(50);
  await one.round(60, 'up');
  await one.pass(60);
  await one.pass(80);
  t.equal((await deliveries(sql, ops)).length, 2, 'a batch whose only page was withdrawn sends nothing');
  t.match(await sql`SELECT monitors, delivery_id FROM alert_group_batches ORDER BY id`, [{ monitors: 1 }, { monitors: 0, delivery_id: null }]);
});

t.test('a batch whose wait ended while the pass that opened it ran is flushed soon, not an interval later', async (t) => {
  const { sql } = await testDatabase(t);
  const user_id = await seedUser(sql);
  const ops = await channel(sql, user_id, 'ops');
  await group(sql, user_id, 'monitor_prefix', 'slow-', 60);
  const w = await seedWorld(sql, {}, { user_id, first: ops, monitor_name: 'slow-1' });
  await w.round(0, 'down');
  // The clock says 0 s to the pass that opens the event (and the batch, due at 60 s), and 61 s
  // from then on: the pass took longer than the group's wait, as on a loaded machine.
  let calls = 0;
  const clock = () => at(calls++ === 0 ? 0 : 61);
  const config = loadConfig({}, { database_url: '', log_level: 'silent', ...w.deps.config });
  const engine = startAlertEngine({ ...w.deps, config, log: pino({ level: 'silent' }) }, { interval_ms: 600_000, clock });
  t.teardown(() => engine.stop());
  const until = Date.now() + 60_000;
  while ((await deliveries(sql, ops)).length === 0) {
    if (Date.now() > until) throw new Error('the batch was not flushed within 60 s (the interval is 10 min)');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  t.same((await deliveries(sql, ops)).map((x) => x.monitors), [['slow-1']], 'the group message, sent by the next pass');
});
