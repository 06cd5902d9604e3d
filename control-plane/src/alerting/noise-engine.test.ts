import t from 'tap';
import { newId, type AlertNoiseKind } from '@vantage/shared-protocol';
import type { Sql } from '../db/sql.js';
import { testDatabase } from '../test-support/db.js';
import { seedWorld, type World } from './engine-fixtures.js';
import { insertNoiseRule, type NoiseRuleFields } from './noise-rules.db.js';

/*
 * Noise rules in the alert engine, on a clock the test moves (engine-fixtures.ts): judged rounds,
 * engine passes, then the notifications queued (`level:channel:kind`) and the events' marks.
 */

async function rule(sql: Sql, user_id: string, kind: AlertNoiseKind, f: Partial<NoiseRuleFields>): Promise<string> {
  const id = newId('alert_noise_rule');
  await insertNoiseRule(sql, id, { user_id, team_id: null }, kind, {
    name: kind, enabled: true, monitor_ids: [], tags: [], flap_changes: null, flap_window_s: null, duplicate_match: null, min_down_s: null, ...f,
  });
  return id;
}

type Play = Array<[number, 'up' | 'down' | null]>;
/** Rounds (verdict, or null for a pass only) at the given seconds, each followed by a pass. */
async function play(w: World, steps: Play): Promise<void> {
  for (const [s, verdict] of steps) {
    if (verdict) await w.round(s, verdict);
    await w.pass(s);
  }
}

const FLAP: Play = [[0, 'down'], [60, 'up'], [120, 'down'], [180, 'up'], [240, 'down'], [300, 'up'], [360, 'down'], [420, 'up']];

t.test('flap: N changes in the window page once; stable for the window, the next outage pages again', async (t) => {
  const { sql } = await testDatabase(t);
  const w = await seedWorld(sql);
  const rule_id = await rule(sql, w.user_id, 'flap', { flap_changes: 3, flap_window_s: 600 });
  await play(w, FLAP);
  t.same(await w.sent(), ['0:first:firing', '0:first:resolved'], 'one page (and its resolution) for the whole flap');
  const events = await sql`SELECT status, suppressed, metadata FROM alert_events WHERE user_id = ${w.user_id} ORDER BY started_at`;
  t.equal(events.length, 4, 'every outage still recorded');
  t.match(events.slice(1), Array(3).fill({ status: 'resolved', suppressed: 'flapping', metadata: { flapping: true, noise_rule_id: rule_id } }), 'the others held back as flapping');
  const notes = await sql`SELECT n.suppressed, n.delivery_id FROM alert_event_notifications n JOIN alert_events e ON e.id = n.event_id WHERE e.user_id = ${w.user_id} AND n.suppressed IS NOT NULL`;
  t.same(notes.map((n) => [n.suppressed, n.delivery_id]), Array(3).fill(['flapping', null]), 'recorded without a delivery');

  // 420 → 1100: more than the window without a change: the flap is over.
  await play(w, [[1100, 'down']]);
  t.same((await w.sent()).slice(2), ['0:first:firing'], 'after the flap, an outage pages');

  // The same flap without the rule pages every outage.
  const plain = await seedWorld(sql);
  await play(plain, FLAP);
  t.equal((await plain.sent()).filter((k) => k.endsWith(':firing')).length, 4, 'without a rule: four pages');
});

t.test('flap: no escalation while flapping', async (t) => {
  const { sql } = await testDatabase(t);
  const w = await seedWorld(sql, { levels: [120] });
  await rule(sql, w.user_id, 'flap', { flap_changes: 2, flap_window_s: 600 });
  await play(w, [[0, 'down'], [60, 'up'], [120, 'down'], [240, null], [500, null]]);
  t.same(await w.sent(), ['0:first:firing'], 'the second outage neither pages nor escalates (and the first page\'s resolution waits)');
  await play(w, [[1200, 'up']]);
  t.same(await w.sent(), ['0:first:firing', '0:first:resolved'], 'up after a stable stretch: resolved at once');
});

t.test('flap: a paged event\'s resolution waits until the monitor is stable for the window', async (t) => {
  const { sql } = await testDatabase(t);
  const w = await seedWorld(sql);
  const rule_id = await rule(sql, w.user_id, 'flap', { flap_changes: 2, flap_window_s: 600 });
  await play(w, [[0, 'down'], [60, 'up'], [120, 'down'], [180, 'up'], [240, 'down'], [300, 'up']]);
  t.same(await w.sent(), ['0:first:firing'], 'one page; no resolution while it flaps');
  const [open] = await sql`SELECT status, resolve_held_until, metadata FROM alert_events WHERE user_id = ${w.user_id}`;
  t.equal((await sql`SELECT 1 FROM alert_events WHERE user_id = ${w.user_id}`).length, 1, 'the outages of the flap are one event');
  t.match(open, { status: 'firing', metadata: { flapping: true, flapping_since: '2025-03-10T12:00:00.000Z', noise_rule_id: rule_id } });
  t.equal(open!.resolve_held_until.toISOString(), '2025-03-10T12:11:00.000Z', 'held at 60 s until 600 s after that change');
  await play(w, [[660, null]]);
  const [again] = await sql`SELECT status, resolve_held_until FROM alert_events WHERE user_id = ${w.user_id}`;
  t.match(again, { status: 'firing' }, 'looked at again when the hold ends: the later changes hold it longer');
  t.equal(again!.resolve_held_until.toISOString(), '2025-03-10T12:15:00.000Z', 'until 600 s after the last change (300 s)');
  await play(w, [[899, null]]);
  t.same(await w.sent(), ['0:first:firing'], 'a second before the hold ends: still nothing');
  await play(w, [[900, null]]);
  t.same(await w.sent(), ['0:first:firing', '0:first:resolved'], 'stable for the window: one resolution');
  t.match(await w.events(), [{ status: 'resolved' }]);

  // An event that never paged (its page was held back as flapping) resolves at once: nobody to tell.
  const quiet = await seedWorld(sql, { delay_s: 300 });
  await rule(sql, quiet.user_id, 'flap', { flap_changes: 2, flap_window_s: 600 });
  await play(quiet, [[0, 'down'], [60, 'up']]);
  t.match(await quiet.events(), [{ status: 'resolved' }], 'not paged yet (delay): resolved without a hold');
  t.same(await quiet.sent(), []);
});

t.test('duplicate: monitors with the same target failing together page once', async (t) => {
  const { sql } = await testDatabase(t);
  const a = await seedWorld(sql);
  const b = await seedWorld(sql, {}, { user_id: a.user_id, first: a.first });
  const c = await seedWorld(sql, {}, { user_id: a.user_id, first: a.first });
  const other = await seedWorld(sql, {}, { user_id: a.user_id, first: a.first });
  await sql`UPDATE monitors SET target = 'EXAMPLE.com:8443' WHERE id = ${c.monitor_id}`;
  await sql`UPDATE monitors SET target = 'https://other.example.net/' WHERE id = ${other.monitor_id}`;
  await rule(sql, a.user_id, 'duplicate', { duplicate_match: 'host' });

  // a and b in the same pass (one transaction of steps), c one pass later.
  await a.round(0, 'down');
  await b.round(0, 'down');
  await other.round(0, 'down');
  await a.pass(0);
  await c.round(30, 'down');
  await c.pass(30);
  const rows = await sql`SELECT monitor_id, id, suppressed, metadata FROM alert_events WHERE user_id = ${a.user_id}`;
  const of = (w: World) => rows.find((r) => r.monitor_id === w.monitor_id)!;
  const paged = [a, b].find((w) => of(w).suppressed === null)!;
  const held = paged === a ? b : a;
  t.match(of(held), { suppressed: 'duplicate', metadata: { duplicate_of: of(paged).id } }, 'the second of the same pass is held back');
  t.match(of(c), { suppressed: 'duplicate', metadata: { duplicate_of: of(paged).id } }, 'host:port matches the URL\'s host');
  t.equal(of(other).suppressed, null, 'another host pages');
  const deliveries = await sql`SELECT message_id FROM deliveries WHERE user_id = ${a.user_id} AND message_id LIKE '%:firing'`;
  t.same(deliveries.map((d) => d.message_id.split(':')[0]).sort(), [of(paged).id, of(other).id].sort(), 'two pages for four failing monitors');
});

t.test('duplicate: once the paged one is over, a held-back outage escalates on its own', async (t) => {
  const { sql } = await testDatabase(t);
  const a = await seedWorld(sql);
  const b = await seedWorld(sql, { levels: [300] }, { user_id: a.user_id, first: a.first });
  await rule(sql, a.user_id, 'duplicate', { duplicate_match: 'target' });
  await play(a, [[0, 'down']]);
  await play(b, [[10, 'down'], [60, null]]);
  await play(a, [[120, 'up']]);
  await b.pass(310);
  t.same(await b.sent(), ['0:first:firing', '0:first:resolved', '1:level1:firing'], 'level 1 of the held-back event pages once a is resolved');
});

t.test('min_duration: nothing pages before the monitor has been down that long', async (t) => {
  const { sql } = await testDatabase(t);
  const w = await seedWorld(sql, { delay_s: 30 });
  await rule(sql, w.user_id, 'min_duration', { min_down_s: 120 });
  await play(w, [[0, 'down'], [30, null], [119, null]]);
  t.same(await w.sent(), [], 'not yet at 119 s (delay_s 30 passed)');
  await play(w, [[120, null]]);
  t.same(await w.sent(), ['0:first:firing'], 'paged at 120 s');
  // An outage longer than delay_s but shorter than the minimum pages nobody.
  await play(w, [[200, 'up'], [300, 'down'], [340, null], [400, 'up'], [600, null]]);
  t.same(await w.sent(), ['0:first:firing', '0:first:resolved'], 'a 100 s outage paged nobody');

  const disabled = await seedWorld(sql);
  await rule(sql, disabled.user_id, 'min_duration', { min_down_s: 120, enabled: false });
  await play(disabled, [[0, 'down']]);
  t.same(await disabled.sent(), ['0:first:firing'], 'a disabled rule does nothing');
});

t.test('scope: a rule applies to the monitors it lists or tags, and only to its owner\'s', async (t) => {
  const { sql } = await testDatabase(t);
  const listed = await seedWorld(sql);
  const tagged = await seedWorld(sql, {}, { user_id: listed.user_id, first: listed.first });
  const outside = await seedWorld(sql, {}, { user_id: listed.user_id, first: listed.first });
  const stranger = await seedWorld(sql);
  await sql`UPDATE monitors SET tags = '{edge}' WHERE id = ${tagged.monitor_id}`;
  await rule(sql, listed.user_id, 'min_duration', { min_down_s: 600, monitor_ids: [listed.monitor_id], tags: ['edge'] });
  for (const w of [listed, tagged, outside, stranger]) await w.round(0, 'down');
  await listed.pass(0);
  t.same(await listed.sent(), ['0:first:firing'], 'only the monitor outside the scope paged');
  t.same(await stranger.sent(), ['0:first:firing'], 'another account is not touched');
});
