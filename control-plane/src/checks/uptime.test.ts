import t from 'tap';
import { loadConfig } from '../config/index.js';
import { createLogger } from '../log.js';
import { findMonitor, listMonitors } from '../monitors/monitors.db.js';
import { createResultSink } from '../probes/sink.js';
import { testDatabase } from '../test-support/db.js';
import { decidePass } from './decide.js';
import { addRollupDeltas, type RollupDelta } from './decide.db.js';
import { createCheckStore } from './ingest.js';
import { expireRounds, httpResult, roundAt, seedMonitor } from './test-support.js';
import { monitorUptime, rollupRanges } from './uptime.js';

t.test('uptime arithmetic: downtime, maintenance left out, incidents and MTTR, whole hours from rollups and the edges from rounds', async (t) => {
  const { sql } = await testDatabase(t);
  const config = loadConfig({}, { database_url: 'postgres://unused', log_level: 'silent', checks_round_grace_ms: 3_600_000 });
  const sink = createResultSink({ sql, log: createLogger('silent'), config, checks: createCheckStore({ config }) });
  const m = await seedMonitor(sql, { nodes: 1, interval_s: 60 });
  // Rounds are placed from one instant: a round boundary passing while the test runs moves nothing.
  const now = Date.now();
  const at = (k: number) => roundAt(m, k, now);
  const node = m.node_ids[0]!;
  // A maintenance window over rounds -60..-51, written as the maintenance feature would (state column).
  const ms = (k: number) => new Date(Date.parse(at(k)) - 1000);
  await sql`UPDATE monitors SET state = 'maintenance', state_changed_at = ${ms(-60)} WHERE id = ${m.monitor_id}`;
  await sql`UPDATE monitors SET state = 'pending', state_changed_at = ${ms(-50)} WHERE id = ${m.monitor_id}`;
  // Rounds -130..-11: down for -100..-91 (10 min) and, inside the maintenance, -58..-52; up otherwise.
  const results = [];
  for (let k = -130; k <= -11; k++) {
    const down = (k >= -100 && k <= -91) || (k >= -58 && k <= -52);
    results.push(httpResult(m.monitor_id, at(k), { success: !down }));
  }
  for (let i = 0; i < results.length; i += 40) await sink.ingest(node, results.slice(i, i + 40));
  await expireRounds(sql, m.monitor_id);
  while ((await decidePass({ sql })).monitors > 0);
  t.equal((await sql`SELECT state FROM monitors WHERE id = ${m.monitor_id}`)[0]!.state, 'up');

  const from = new Date(at(-130));
  const to = new Date(at(-10));
  const u = await monitorUptime(sql, m.monitor_id, from, to, null, new Date(Date.now() - 30 * 86_400_000));
  t.match(u, {
    monitored_s: 110 * 60, downtime_s: 600, maintenance_s: 600, up_s: 100 * 60, degraded_s: 0,
    uptime: Math.round((6000 / 6600) * 1e6) / 1e6, uptime_percent: 90.909, incidents: 1, mttr_s: 600,
    rounds: { up: 100, degraded: 0, down: 10 },
  });

  // The same range read only from rollups (as when its edges are past the raw retention): hour-granular, close.
  const coarse = await monitorUptime(sql, m.monitor_id, from, to, null, new Date(Date.now() + 3_600_000));
  // Whole hours move the range's edges by up to an hour each way, depending on the wall clock the
  // rounds were laid on: 10 min down in 50..170 min monitored gives 0.80..0.94 against 0.909.
  t.ok(Math.abs(coarse.uptime! - u.uptime!) < 0.12, `rollups only: ${coarse.uptime} vs ${u.uptime}`);
  t.ok(Math.abs(coarse.monitored_s - u.monitored_s) <= 3600, 'within an hour of monitored time');

  const none = await monitorUptime(sql, m.monitor_id, new Date(Date.now() - 86_400_000 * 3), new Date(Date.now() - 86_400_000 * 2), null, new Date(0));
  t.match(none, { uptime: null, uptime_percent: null, monitored_s: 0, incidents: 0, mttr_s: null }, 'no data: null, not 100 %');
  t.equal((await sql`SELECT monitor_uptime_24h(${m.monitor_id}) AS u`)[0]!.u, 6000 / 6600, 'the monitor record\'s uptime_24h');
  // The record's columns write that function's body out (monitors.db.ts COLUMNS): the same figure.
  t.equal((await findMonitor(sql, m.monitor_id))!.uptime_24h, 6000 / 6600, 'the monitor record reads the same uptime_24h');
  const [listed] = (await listMonitors(sql, { user_id: (await findMonitor(sql, m.monitor_id))!.user_id, team_ids: [] }, {}, 1, 10)).rows;
  t.equal(listed!.uptime_24h, 6000 / 6600, 'and so does the monitor list');
});

t.test('uptime figures agree with each other when a round is still running (the percent is the shown seconds\' ratio)', async (t) => {
  const { sql } = await testDatabase(t);
  const config = loadConfig({}, { database_url: 'postgres://unused', log_level: 'silent', checks_round_grace_ms: 3_600_000 });
  const sink = createResultSink({ sql, log: createLogger('silent'), config, checks: createCheckStore({ config }) });
  const m = await seedMonitor(sql, { nodes: 1, interval_s: 60 });
  // Rounds are placed from one instant: a round boundary passing while the test runs moves nothing.
  const now = Date.now();
  const at = (k: number) => roundAt(m, k, now);
  // Rounds -3 up, -2 down, -1 up; the range ends 2.3 s into round -1, which counts its elapsed part.
  await sink.ingest(m.node_ids[0]!, [-3, -2, -1].map((k) => httpResult(m.monitor_id, at(k), { success: k !== -2 })));
  await expireRounds(sql, m.monitor_id);
  while ((await decidePass({ sql })).monitors > 0);
  const to = new Date(Date.parse(at(-1)) + 2300);
  const u = await monitorUptime(sql, m.monitor_id, new Date(at(-3)), to, null, new Date(Date.now() - 30 * 86_400_000));
  t.match(u, { up_s: 62, downtime_s: 60, monitored_s: 122, incidents: 1, rounds: { up: 2, down: 1 } });
  t.equal(u.monitored_s, u.up_s + u.degraded_s + u.downtime_s, 'monitored is the sum of the seconds shown');
  t.equal(u.uptime_percent, Math.round(((u.up_s + u.degraded_s) / u.monitored_s) * 1e5) / 1e3, `${u.uptime_percent} % is ${u.up_s} of ${u.monitored_s} s`);
});

t.test('whole days are read from the daily rollups, the hours around them from the hourly ones', async (t) => {
  const H = 3_600_000;
  const D = 24 * H;
  t.same(rollupRanges(5 * H, 20 * H), { days: null, hours: [[5 * H, 20 * H]] }, 'no whole day: hours only');
  t.same(rollupRanges(5 * H, D + 3 * H), { days: null, hours: [[5 * H, D + 3 * H]] }, 'crossing midnight without a whole day');
  t.same(rollupRanges(5 * H, 3 * D + 2 * H), { days: [D, 3 * D], hours: [[5 * H, D], [3 * D, 3 * D + 2 * H]] });
  t.same(rollupRanges(D, 3 * D), { days: [D, 3 * D], hours: [] }, 'day-aligned: days only');
  t.same(rollupRanges(4 * H, 4 * H), { days: null, hours: [] }, 'empty');

  const { sql } = await testDatabase(t);
  const m = await seedMonitor(sql, { nodes: 1, interval_s: 60 });
  const day0 = Math.floor(Date.now() / D) * D - 5 * D;
  // Four days of hours with varied figures, added in two passes (the second changes some hours, as
  // a re-judged round does, with negative differences too): the daily rows must follow each change.
  const hours = new Map<number, { up_s: number; down_s: number; rounds_up: number; rounds_down: number }>();
  const pass = async (k: number) => {
    const deltas: RollupDelta[] = [];
    for (let h = 0; h < 4 * 24; h += k + 1) {
      const hour = day0 + h * H;
      const down = k === 0 ? h % 7 * 60 : (h % 5 === 0 ? 60 : -((h % 7) * 60));
      const was = hours.get(hour) ?? { up_s: 0, down_s: 0, rounds_up: 0, rounds_down: 0 };
      const d = { up_s: k === 0 ? 3600 - down : -down, down_s: down, rounds_up: k === 0 ? 60 - down / 60 : -down / 60, rounds_down: down / 60 };
      hours.set(hour, { up_s: was.up_s + d.up_s, down_s: was.down_s + d.down_s, rounds_up: was.rounds_up + d.rounds_up, rounds_down: was.rounds_down + d.rounds_down });
      deltas.push({ monitor_id: m.monitor_id, hour: new Date(hour), degraded_s: 0, maintenance_s: 0, no_data_s: 0, rounds_degraded: 0, rounds_no_data: 0, ...d });
    }
    await sql.begin((tx) => addRollupDeltas(tx, deltas));
  };
  await pass(0);
  await pass(1);
  const mismatched = await sql`
    SELECT d.day FROM round_rollups_daily d
    JOIN (SELECT date_trunc('day', hour, 'UTC') AS day, sum(up_s) AS up_s, sum(down_s) AS down_s, sum(rounds_up) AS rounds_up, sum(rounds_down) AS rounds_down
          FROM round_rollups WHERE monitor_id = ${m.monitor_id} GROUP BY 1) h ON h.day = d.day
    WHERE d.monitor_id = ${m.monitor_id} AND (d.up_s, d.down_s, d.rounds_up, d.rounds_down) IS DISTINCT FROM (h.up_s, h.down_s, h.rounds_up, h.rounds_down)`;
  t.same(mismatched, [], 'each day is the sum of its hours');
  t.equal((await sql`SELECT count(*)::int AS n FROM round_rollups_daily WHERE monitor_id = ${m.monitor_id}`)[0]!.n, 4);

  // A range from 05:30 on the first day to 07:15 on the fourth (edges past the rounds retention:
  // their hours count in proportion), against the same sums made from the hours alone.
  const f = day0 + 5.5 * H;
  const to = day0 + 3 * D + 7.25 * H;
  const want = { up_s: 0, down_s: 0, rounds_up: 0, rounds_down: 0 };
  for (const [hour, r] of hours) {
    const share = Math.max(0, Math.min(hour + H, to) - Math.max(hour, f)) / H;
    for (const k of Object.keys(want) as Array<keyof typeof want>) want[k] += r[k] * share;
  }
  const u = await monitorUptime(sql, m.monitor_id, new Date(f), new Date(to), null, new Date(Date.now() + H));
  t.match(u, { up_s: Math.round(want.up_s), downtime_s: Math.round(want.down_s), rounds: { up: Math.round(want.rounds_up), down: Math.round(want.rounds_down) } });
  t.ok(u.monitored_s > 2 * 86_400, `${u.monitored_s} s monitored`);
});
