import t from 'tap';
import { testDatabase } from '../test-support/db.js';
import { openEvents, runDueSteps } from './engine.js';
import { at, seedWorld } from './engine-fixtures.js';

/*
 * Opening an event and its first page: without a delay the page is queued by the transaction
 * that opens the event (no later claim of a due step); with a delay the step waits for its due
 * time. Either way one page per event, with the same message id a claimed step would have given.
 */

t.test('an event without a delay is paged by the transaction that opens it', async (t) => {
  const { sql } = await testDatabase(t);
  const w = await seedWorld(sql, { delay_s: 0, levels: [300] });
  await w.round(0, 'down');
  const r = await openEvents(w.deps, at(0));
  t.same(r, { opened: 1, steps: 1 }, 'opened and its first step ran');
  t.same(await w.sent(), ['0:first:firing'], 'the page is queued');
  const [e] = await sql<Array<{ id: string; notified_at: Date | null; next_level: number | null; next_due_at: Date | null }>>`
    SELECT id, notified_at, next_level, next_due_at FROM alert_events WHERE monitor_id = ${w.monitor_id}`;
  t.same(e!.notified_at, at(0), 'notified at the open');
  t.equal(e!.next_level, 1, 'the next level is planned');
  t.same(e!.next_due_at, at(300), 'after_seconds after the first step');
  const [n] = await sql<Array<{ delivery_id: string; message_id: string }>>`
    SELECT n.delivery_id, d.message_id FROM alert_event_notifications n JOIN deliveries d ON d.id = n.delivery_id WHERE n.event_id = ${e!.id}`;
  t.equal(n!.message_id, `${e!.id}:0:${w.first}:firing`, 'the notification names its delivery, message id <event>:<level>:<channel>:<kind>');
  t.equal(await runDueSteps(w.deps, at(0)), 0, 'no step left due at the open');
  t.same(await openEvents(w.deps, at(1)), { opened: 0, steps: 0 }, 'a second pass opens nothing');
  t.same(await w.sent(), ['0:first:firing'], 'and pages nobody again');
});

t.test('an event with a delay opens without a page; its step runs when due', async (t) => {
  const { sql } = await testDatabase(t);
  const w = await seedWorld(sql, { delay_s: 120 });
  await w.round(0, 'down');
  t.same(await openEvents(w.deps, at(0)), { opened: 1, steps: 0 }, 'opened, no step yet');
  t.same(await w.sent(), [], 'nothing queued');
  t.equal(await runDueSteps(w.deps, at(119)), 0, 'not due before the delay');
  t.equal(await runDueSteps(w.deps, at(120)), 1, 'due at the delay');
  t.same(await w.sent(), ['0:first:firing']);
});

t.test('a suppressed event opening without a delay records the held-back page, queues none', async (t) => {
  const { sql } = await testDatabase(t);
  const w = await seedWorld(sql, { delay_s: 0, mute: ['00:00', '23:59'] });
  await w.round(0, 'down');
  t.same(await openEvents(w.deps, at(0)), { opened: 1, steps: 1 });
  t.same(await w.sent(), [], 'muted: nothing queued');
  const rows = await sql<Array<{ suppressed: string | null; delivery_id: string | null }>>`
    SELECT n.suppressed, n.delivery_id FROM alert_event_notifications n JOIN alert_events e ON e.id = n.event_id WHERE e.monitor_id = ${w.monitor_id}`;
  t.same(rows, [{ suppressed: 'mute', delivery_id: null }], 'the step is recorded as muted');
});

t.test('a pass opens every candidate page by page, each once', async (t) => {
  const { sql } = await testDatabase(t);
  const worlds = [];
  for (let i = 0; i < 5; i++) worlds.push(await seedWorld(sql, { delay_s: 0 }));
  for (const w of worlds) await w.round(0, 'down');
  t.same(await openEvents(worlds[0]!.deps, at(0), 2), { opened: 5, steps: 5 }, 'five candidates in pages of two: all opened in one pass');
  for (const w of worlds) t.same(await w.sent(), ['0:first:firing'], 'each monitor paged once');
  t.same(await openEvents(worlds[0]!.deps, at(1), 2), { opened: 0, steps: 0 }, 'a second pass finds none');
});
