import t from 'tap';
import { newId } from '@vantage/shared-protocol';
import { seedTeam } from '../teams/test-support.js';
import { testDatabase } from '../test-support/db.js';
import { at, seedWorld } from './engine-fixtures.js';

/*
 * A team's monitor follows its team's silences, maintenance windows and alert groups, whoever of
 * the team made them (docs/api/alerting.md "Teams"); a teammate's personal ones do not touch it.
 */

t.test('team silences and windows hold back pages of the team\'s monitors', async (t) => {
  const { sql } = await testDatabase(t);
  const silenced = await seedWorld(sql);
  const maintained = await seedWorld(sql, {}, { user_id: silenced.user_id, first: silenced.first });
  const personal = await seedWorld(sql, {}, { user_id: silenced.user_id, first: silenced.first });
  const grouped = await seedWorld(sql, {}, { user_id: silenced.user_id, first: silenced.first, monitor_name: 'edge-1' });
  const teammate = (await seedWorld(sql)).user_id;
  const team = await seedTeam(sql, [[silenced, 'member'], [{ user_id: teammate }, 'member']]);
  for (const w of [silenced, maintained, personal, grouped]) {
    await sql`UPDATE monitors SET team_id = ${team} WHERE id = ${w.monitor_id}`;
    await sql`UPDATE alert_policies SET team_id = ${team} WHERE id = ${w.policy_id}`;
  }
  // The teammate's team silence of one monitor, its team window over another, and its personal
  // silence of all its monitors (which is not the team's).
  await sql`INSERT INTO alert_silences (id, user_id, team_id, monitor_id, reason, starts_at, ends_at)
    VALUES (${newId('alert_silence')}, ${teammate}, ${team}, ${silenced.monitor_id}, 'team', ${at(-60)}, ${at(3600)}),
           (${newId('alert_silence')}, ${teammate}, NULL, NULL, 'personal', ${at(-60)}, ${at(3600)})`;
  await sql`INSERT INTO maintenance_windows (id, user_id, team_id, scope_type, scope_ids, starts_at, ends_at)
    VALUES (${newId('maintenance_window')}, ${teammate}, ${team}, 'monitor', ${[maintained.monitor_id]}, ${at(-60)}, ${at(3600)})`;
  // The teammate's team group gathers edge-* monitors; its personal group of every monitor
  // type does not gather the team's.
  await sql`INSERT INTO alert_groups (id, user_id, team_id, name, group_by, group_value, wait_seconds)
    VALUES (${newId('alert_group')}, ${teammate}, ${team}, 'Edge', 'monitor_prefix', 'edge-', 60),
           (${newId('alert_group')}, ${teammate}, NULL, 'All', 'monitor_prefix', '', 60)`;
  for (const w of [silenced, maintained, personal, grouped]) await w.round(0, 'down');
  await silenced.pass(0);
  const byPolicy = new Map((await sql<Array<{ policy_id: string; suppressed: string | null }>>`SELECT policy_id, suppressed FROM alert_events`).map((e) => [e.policy_id, e.suppressed]));
  t.equal(byPolicy.get(silenced.policy_id), 'silence', 'a teammate\'s team silence holds the page back');
  t.equal(byPolicy.get(maintained.policy_id), 'maintenance', 'a teammate\'s team window holds the page back');
  t.equal(byPolicy.get(personal.policy_id), null, 'a teammate\'s personal silence does not');
  const gathered = async (w: typeof grouped) => (await sql<Array<{ batch_id: string | null }>>`
    SELECT n.batch_id FROM alert_event_notifications n JOIN alert_events e ON e.id = n.event_id WHERE e.policy_id = ${w.policy_id} AND n.kind = 'firing'`).map((n) => n.batch_id !== null);
  t.same(await gathered(grouped), [true], 'a teammate\'s team group gathers the team\'s edge-1');
  t.same(await gathered(personal), [false], 'a teammate\'s personal group does not gather the team\'s monitors');
});

t.test('a team policy\'s mute window and the team\'s recurring windows are in the team\'s time zone, not the creator\'s', async (t) => {
  const { sql } = await testDatabase(t);
  // T0 is 2025-03-10 12:00Z: 08:00 in the team's zone (America/New_York, summer time since
  // 03-09), 21:00 in the creator's (Asia/Tokyo).
  const muted = await seedWorld(sql, { mute: ['07:00', '09:00'] }, { timezone: 'Asia/Tokyo' });
  const maintained = await seedWorld(sql, {}, { user_id: muted.user_id, first: muted.first });
  const personal = await seedWorld(sql, { mute: ['07:00', '09:00'] }, { user_id: muted.user_id, first: muted.first });
  const team = await seedTeam(sql, [[muted, 'owner']]);
  await sql`UPDATE teams SET time_zone = 'America/New_York' WHERE id = ${team}`;
  for (const w of [muted, maintained]) {
    await sql`UPDATE monitors SET team_id = ${team} WHERE id = ${w.monitor_id}`;
    await sql`UPDATE alert_policies SET team_id = ${team} WHERE id = ${w.policy_id}`;
  }
  // A daily team window 07:30-08:30 New York time from 03-07 (12:30Z in winter time): on 03-10
  // it runs 11:30Z-12:30Z, covering T0; kept at 12:30Z (UTC, Tokyo) it would not.
  await sql`INSERT INTO maintenance_windows (id, user_id, team_id, scope_type, scope_ids, starts_at, ends_at, recurrence)
    VALUES (${newId('maintenance_window')}, ${muted.user_id}, ${team}, 'monitor', ${[maintained.monitor_id]}, '2025-03-07T12:30:00Z', '2025-03-07T13:30:00Z', 'daily')`;
  for (const w of [muted, maintained, personal]) await w.round(0, 'down');
  const suppressed = async (s: number) => {
    await sql`DELETE FROM alert_events`;
    await muted.pass(s);
    return new Map((await sql<Array<{ policy_id: string; suppressed: string | null }>>`SELECT policy_id, suppressed FROM alert_events`).map((e) => [e.policy_id, e.suppressed]));
  };
  const before = await suppressed(0);
  t.equal(before.get(muted.policy_id), 'mute', 'the team policy is muted at 08:00 team time');
  t.equal(before.get(maintained.policy_id), 'maintenance', 'the team window\'s daily occurrence covers 08:00 team time');
  t.equal(before.get(personal.policy_id), null, 'the creator\'s personal policy: 21:00 Tokyo, not muted');

  await sql`UPDATE teams SET time_zone = 'UTC' WHERE id = ${team}`;
  const after = await suppressed(1);
  t.equal(after.get(muted.policy_id), null, 'the team moved to UTC: 12:00, not muted');
  t.equal(after.get(maintained.policy_id), null, 'nor in its window (12:30Z-13:30Z)');
});
