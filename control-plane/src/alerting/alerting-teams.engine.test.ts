import t from 'tap';
import { newId } from '@vantage/shared-protocol';
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
  const team = newId('team');
  await sql`INSERT INTO teams (id, name) VALUES (${team}, 'Ops')`;
  await sql`INSERT INTO team_members (team_id, user_id, role) VALUES (${team}, ${silenced.user_id}, 'member'), (${team}, ${teammate}, 'member')`;
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
