import t from 'tap';
import { testDatabase } from '../test-support/db.js';
import { seedMonitor } from './test-support.js';
import { uptimeReads } from './uptime.db.js';

const H = 3_600_000;
const D = 24 * H;

t.test('one statement reads every part of an uptime answer, each part only from its own range', async (t) => {
  const { sql } = await testDatabase(t);
  const m = await seedMonitor(sql, { nodes: 1 });
  const other = await seedMonitor(sql, { nodes: 1 });
  const day0 = Math.floor(Date.now() / D) * D - 10 * D;
  const at = (ms: number) => new Date(day0 + ms);
  for (const id of [m.monitor_id, other.monitor_id]) {
    await sql`INSERT INTO round_rollups_daily (day, monitor_id, up_s, down_s, rounds_up, rounds_down) VALUES
      (${at(0)}, ${id}, 80000, 6400, 1334, 106), (${at(D)}, ${id}, 86400, 0, 1440, 0), (${at(2 * D)}, ${id}, 1, 1, 1, 1)`;
    await sql`INSERT INTO round_rollups (hour, monitor_id, up_s, degraded_s, no_data_s, rounds_up, rounds_degraded, rounds_no_data) VALUES
      (${at(-H)}, ${id}, 3000, 600, 0, 50, 10, 0), (${at(2 * D)}, ${id}, 3540, 0, 60, 59, 0, 1), (${at(2 * D + H)}, ${id}, 3600, 0, 0, 60, 0, 0),
      (${at(-2 * H)}, ${id}, 7, 7, 7, 7, 7, 7)`;
    await sql`INSERT INTO check_rounds (scheduled_at, deadline_at, monitor_id, interval_s, expected, reported, failed, verdict, dirty, counted) VALUES
      (${at(2 * D + 2 * H)}, ${at(2 * D + 2 * H + 60_000)}, ${id}, 60, 1, 1, 0, 'up', false, true),
      (${at(2 * D + 2 * H + 60_000)}, ${at(2 * D + 2 * H + 120_000)}, ${id}, 60, 1, 1, 1, 'down', false, false),
      (${at(2 * D + 2 * H + 120_000)}, ${at(2 * D + 2 * H + 180_000)}, ${id}, 60, 1, 0, 0, NULL, true, true)`;
  }
  // State changes: one before the range, two at the same instant (ordered by id), one superseded.
  await sql`INSERT INTO monitor_state_changes (monitor_id, from_state, to_state, changed_at, source) VALUES
    (${m.monitor_id}, 'up', 'down', ${at(-3 * H)}, 'verdict'), (${m.monitor_id}, 'down', 'up', ${at(-4 * H)}, 'verdict'),
    (${m.monitor_id}, 'down', 'up', ${at(5 * H)}, 'verdict'), (${m.monitor_id}, 'up', 'paused', ${at(5 * H)}, 'user'),
    (${m.monitor_id}, 'paused', 'down', ${at(3 * H)}, 'verdict')`;
  await sql`INSERT INTO monitor_state_changes (monitor_id, from_state, to_state, changed_at, source, superseded_at) VALUES
    (${m.monitor_id}, 'up', 'degraded', ${at(4 * H)}, 'verdict', now())`;
  await sql`INSERT INTO monitor_state_changes (monitor_id, from_state, to_state, changed_at, source) VALUES (${other.monitor_id}, 'up', 'down', ${at(H)}, 'verdict')`;

  const rows = await uptimeReads(sql, m.monitor_id, {
    days: [at(0), at(2 * D)], hours: [[at(-H), at(0)], [at(2 * D), at(2 * D + H)]],
    edge_hours: [at(2 * D + H)], edge_rounds: [[at(2 * D + 2 * H), at(2 * D + 3 * H)]], timeline: [at(-H), at(3 * D)],
  });
  t.same(rows.sums, {
    up_s: 80000 + 86400 + 3000 + 3540, degraded_s: 600, down_s: 6400, maintenance_s: 0, no_data_s: 60,
    rounds_up: 1334 + 1440 + 50 + 59, rounds_degraded: 10, rounds_down: 106, rounds_no_data: 1,
  }, 'days and hours summed, nothing outside their ranges');
  t.same(rows.edge_hours.map((r) => [r.hour.getTime(), r.up_s, r.rounds_up]), [[day0 + 2 * D + H, 3600, 60]], 'the edge hour read alone');
  t.same(rows.edge_rounds.map((r) => [r.scheduled_at.getTime() - day0, r.verdict, r.counted]).sort(),
    [[2 * D + 2 * H, 'up', true], [2 * D + 2 * H + 60_000, 'down', false]], 'judged rounds only');
  // Down since -3 h (the state in force at the start), still down at 3 h, up at 5 h then paused at
  // the same instant (in the order recorded); the superseded change at 4 h and the other monitor's left out.
  t.same(rows.spells, { incidents: 1, recovered_s: [8 * 3600] }, 'one spell, from its real start before the range to its recovery');
  t.same(rows.owner, { user_id: m.user_id, team_id: null }, 'the monitor\'s owner, for authorization');

  const empty = await uptimeReads(sql, m.monitor_id, { days: null, hours: [], edge_hours: [], edge_rounds: [], timeline: [at(-20 * D), at(-19 * D)] });
  t.same(empty, {
    sums: { up_s: 0, degraded_s: 0, down_s: 0, maintenance_s: 0, no_data_s: 0, rounds_up: 0, rounds_degraded: 0, rounds_down: 0, rounds_no_data: 0 },
    edge_hours: [], edge_rounds: [], spells: { incidents: 0, recovered_s: [] }, owner: { user_id: m.user_id, team_id: null },
  }, 'nothing to read: zeros, no spells');
  const gone = await uptimeReads(sql, 'm_01aaaaaaaaaaaaaaaaaaaaaaaa', { days: [at(0), at(2 * D)], hours: [], edge_hours: [], edge_rounds: [], timeline: [at(-H), at(3 * D)] });
  t.same([gone.owner, gone.sums.up_s, gone.spells.incidents], [null, 0, 0], 'no such monitor: no owner, nothing read');
});

t.test('down spells: incidents overlapping the range and the time to each recovery, to the millisecond', async (t) => {
  const { sql } = await testDatabase(t);
  const start = Math.floor(Date.now() / H) * H - 10 * D;
  const at = (s: number) => new Date(start + s * 1000);
  // Each case: changes (seconds from the range's start, negative: before it; then microseconds
  // more, which the millisecond drops) and what the range [0, 1000 s) holds.
  const cases: Array<[string, Array<[number, string, number?]>, { incidents: number; recovered_s: number[] }]> = [
    ['no changes', [], { incidents: 0, recovered_s: [] }],
    ['two spells, recovered by up and by degraded', [[0, 'up'], [100, 'down'], [400, 'up'], [500, 'down'], [600, 'degraded']], { incidents: 2, recovered_s: [300, 100] }],
    ['a spell running at the start counts from its real start', [[-80, 'up'], [-50, 'down'], [50, 'up']], { incidents: 1, recovered_s: [100] }],
    ['a spell that ended before the start is not counted', [[-80, 'down'], [-50, 'up'], [50, 'down']], { incidents: 1, recovered_s: [] }],
    ['ended by a pause: no recovery; down again after it is a new spell', [[0, 'down'], [30, 'paused'], [40, 'down'], [70, 'up']], { incidents: 2, recovered_s: [30] }],
    ['down after down is the same spell', [[0, 'down'], [10, 'down'], [25, 'up']], { incidents: 1, recovered_s: [25] }],
    ['still down; a change at the end is outside', [[0, 'down'], [1000, 'up']], { incidents: 1, recovered_s: [] }],
    ['milliseconds kept', [[0.25, 'down'], [1.5, 'up']], { incidents: 1, recovered_s: [1.25] }],
    ['microseconds dropped', [[0.123, 'down', 999], [1, 'up', 1]], { incidents: 1, recovered_s: [0.877] }],
    ['within one millisecond, in the order recorded', [[5, 'down', 900], [5, 'up', 100]], { incidents: 1, recovered_s: [0] }],
  ];
  for (const [name, changes, want] of cases) {
    const m = await seedMonitor(sql, { nodes: 1 });
    for (const [s, to_state, us = 0] of changes) {
      await sql`INSERT INTO monitor_state_changes (monitor_id, from_state, to_state, changed_at, source)
        VALUES (${m.monitor_id}, 'up', ${to_state}, ${at(s)}::timestamptz + ${us} * interval '1 microsecond', 'verdict')`;
    }
    const rows = await uptimeReads(sql, m.monitor_id, { days: null, hours: [], edge_hours: [], edge_rounds: [], timeline: [at(0), at(1000)] });
    t.same(rows.spells, want, name);
  }
});
