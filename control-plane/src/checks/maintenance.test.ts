import t from 'tap';
import { newId } from '@vantage/shared-protocol';
import { createMaintenanceCalendar } from '../alerting/maintenance-calendar.js';
import { loadConfig } from '../config/index.js';
import { createLogger } from '../log.js';
import { createResultSink } from '../probes/sink.js';
import { testDatabase } from '../test-support/db.js';
import { decidePass } from './decide.js';
import { createCheckStore } from './ingest.js';
import { expireRounds, httpResult, roundAt, seedMonitor } from './test-support.js';
import { monitorUptime } from './uptime.js';

t.test('rounds in a maintenance window: state maintenance, left out of uptime, no incident', async (t) => {
  const { sql } = await testDatabase(t);
  const config = loadConfig({}, { database_url: 'postgres://unused', log_level: 'silent', checks_round_grace_ms: 3_600_000 });
  const sink = createResultSink({ sql, log: createLogger('silent'), config, checks: createCheckStore({ config }) });
  const maintenance = createMaintenanceCalendar();
  const m = await seedMonitor(sql, { nodes: 1 });
  // Rounds counted from one instant: a round boundary passing while the test runs shifts nothing.
  const now = Date.now();
  const round = (k: number) => roundAt(m, k, now);
  const edge = (k: number) => new Date(Date.parse(round(k)) - 1000);
  // A window over rounds -30..-21, as the maintenance-window API stores it.
  await sql`
    INSERT INTO maintenance_windows (id, user_id, scope_type, scope_ids, starts_at, ends_at)
    VALUES (${newId('maintenance_window')}, ${m.user_id}, 'monitor', ${[m.monitor_id]}, ${edge(-30)}, ${edge(-20)})`;
  // Down inside the window (-28..-24) and once after it (-15..-14); up otherwise.
  const results = [];
  for (let k = -40; k <= -11; k++) results.push(httpResult(m.monitor_id, round(k), { success: !((k >= -28 && k <= -24) || k === -15 || k === -14) }));
  await sink.ingest(m.node_ids[0]!, results);
  await expireRounds(sql, m.monitor_id);
  while ((await decidePass({ sql, maintenance })).rounds > 0);

  const log = await sql`SELECT from_state, to_state, source, reason, changed_at FROM monitor_state_changes WHERE monitor_id = ${m.monitor_id} AND superseded_at IS NULL ORDER BY changed_at, id`;
  t.same(log.map((c) => [c.from_state, c.to_state, c.source, c.changed_at.toISOString()]), [
    ['pending', 'up', 'verdict', round(-40)],
    ['up', 'maintenance', 'maintenance', round(-30)],
    ['maintenance', 'up', 'verdict', round(-20)],
    ['up', 'down', 'verdict', round(-15)],
    ['down', 'up', 'verdict', round(-13)],
  ], 'the window shows as maintenance; the failures inside it change nothing');
  t.equal(log[1]!.reason, 'in a maintenance window');
  const u = await monitorUptime(sql, m.monitor_id, new Date(round(-40)), new Date(round(-10)), null, new Date(0));
  t.match(u, { maintenance_s: 600, downtime_s: 120, monitored_s: 1200, incidents: 1, mttr_s: 120 });
  t.equal((await sql`SELECT count(*)::int AS n FROM check_rounds WHERE monitor_id = ${m.monitor_id} AND NOT counted`)[0]!.n, 10);
});
