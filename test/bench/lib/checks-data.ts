import { newId, roundPhaseMs } from '@vantage/shared-protocol';
import type { Sql } from '../../../control-plane/src/db/sql.js';
import { createPartition, partitionFor } from '../../../control-plane/src/checks/partitions.db.js';
import { rollUpDay, rollUpHour } from '../../../control-plane/src/checks/jobs.db.js';
import { insertChecks } from '../../../control-plane/src/checks/check-rows.db.js';
import { encodeOutput } from '../../../control-plane/src/checks/output-codec.js';
import { pingResult } from '../../../control-plane/src/checks/test-support.js';

/*
 * Bulk data for the check-history benchmark, written with SQL (the ingest path is measured
 * separately): monitors placed on nodes, and 90 days of one monitor's history.
 */

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/**
 * `count` ping monitors of one account, each placed on 3 of `node_ids` (round robin), created and
 * placed `age_s` ago (default a day: the rounds the benchmark reports must lie within their life).
 * @returns their ids
 */
export async function bulkMonitors(sql: Sql, user_id: string, node_ids: string[], count: number, interval_s = 60, age_s = 86_400): Promise<string[]> {
  const ids = Array.from({ length: count }, () => newId('monitor'));
  for (let i = 0; i < ids.length; i += 5000) {
    const chunk = ids.slice(i, i + 5000);
    await sql`
      INSERT INTO monitors (id, user_id, name, type, target, config, interval_s, node_count, created_at)
      SELECT id, ${user_id}, 'ping ' || id, 'ping', '198.18.0.1', '{"count": 4, "interval_ms": 1000, "timeout_ms": 5000}', ${interval_s}, 3, now() - make_interval(secs => ${age_s})
      FROM unnest(${chunk}::text[]) AS id`;
    const pm: string[] = [];
    const pn: string[] = [];
    chunk.forEach((m, j) => {
      for (let r = 0; r < 3; r++) {
        pm.push(m);
        pn.push(node_ids[(i + j + r * Math.ceil(node_ids.length / 3)) % node_ids.length]!);
      }
    });
    await sql`INSERT INTO monitor_placements (monitor_id, node_id, revision, placed_at)
      SELECT *, now() - make_interval(secs => ${age_s}) FROM unnest(${pm}::text[], ${pn}::text[], ${pm.map(() => 1)}::bigint[])`;
  }
  await sql`DELETE FROM placement_queue`;
  return ids;
}

/** Daily partitions of raw checks and rounds for the `days` days before today (what a deployment that ran that long has). */
export async function pastPartitions(sql: Sql, days: number): Promise<void> {
  await sql.begin(async (tx) => {
    for (let d = 2; d <= days; d++) {
      for (const table of ['checks', 'check_rounds'] as const) {
        const p = partitionFor(table, new Date(Date.now() - d * DAY_MS));
        const [exists] = await tx`SELECT to_regclass(${p.name}) IS NOT NULL AS ok`;
        if (!exists!.ok) await createPartition(tx, table, p);
      }
    }
    for (let mo = 1; mo <= 3; mo++) {
      for (const table of ['check_rollups', 'check_rollups_daily', 'round_rollups', 'round_rollups_daily'] as const) {
        const p = partitionFor(table, new Date(Date.now() - mo * 30 * DAY_MS));
        const [exists] = await tx`SELECT to_regclass(${p.name}) IS NOT NULL AS ok`;
        if (!exists!.ok) await createPartition(tx, table, p);
      }
    }
  });
}

/**
 * 90 days (`days`) of history for `monitor_id` on `node_ids`, every 60 s: raw checks (response
 * times around 40-60 ms per node, 0.5 % failures), judged rounds, hourly check rollups (by the
 * rollup job's own statement) and uptime rollups, and one 5-minute outage a day in the state log.
 */
export async function monitorHistory(sql: Sql, monitor_id: string, node_ids: string[], days: number, log: (m: string) => void): Promise<void> {
  const phase = roundPhaseMs(monitor_id, 60);
  const end = Math.floor((Date.now() - phase) / 60_000) * 60_000 + phase;
  const start = end - days * DAY_MS;
  for (const node of node_ids) await sql`INSERT INTO check_series (monitor_id, node_id) VALUES (${monitor_id}, ${node}) ON CONFLICT DO NOTHING`;
  const series = await sql<{ id: number }[]>`SELECT id FROM check_series WHERE monitor_id = ${monitor_id} ORDER BY id`;
  const outage = (col: string) => sql.unsafe(`(extract(epoch FROM ${col})::bigint % 86400) BETWEEN 43200 AND 43499`);
  for (let d = 0; d < days; d++) {
    const from = new Date(start + d * DAY_MS);
    const to = new Date(start + (d + 1) * DAY_MS);
    await sql`
      INSERT INTO checks (scheduled_at, stored_at, series_id, start_offset_ms, duration_ms, response_ms, success, error_class, error, output)
      SELECT at, at + interval '3 seconds', s.id, 2, 3100, r, ok, CASE WHEN ok THEN NULL ELSE 'timeout' END, CASE WHEN ok THEN NULL ELSE 'no reply' END,
        CASE WHEN ok THEN jsonb_build_object('resolved_address', '198.18.0.1', 'packets_sent', 4, 'packets_received', 4, 'packet_loss', 0,
          'rtt_min_ms', r - 1, 'rtt_avg_ms', r, 'rtt_max_ms', r + 2, 'rtt_stddev_ms', 0.8,
          'packets', jsonb_build_array(jsonb_build_object('seq', 0, 'rtt_ms', r - 1, 'ttl', 57), jsonb_build_object('seq', 1, 'rtt_ms', r, 'ttl', 57),
            jsonb_build_object('seq', 2, 'rtt_ms', r + 2, 'ttl', 57), jsonb_build_object('seq', 3, 'rtt_ms', r, 'ttl', 57))) END
      FROM generate_series(${from}::timestamptz, ${to}::timestamptz - interval '1 minute', interval '1 minute') AS at
      CROSS JOIN unnest(${series.map((s) => s.id)}::int[]) AS s(id)
      CROSS JOIN LATERAL (SELECT (40 + s.id % 3 * 10 + random() * 20)::real AS r,
        NOT (${outage('at')} OR random() < 0.005) AS ok) x`;
    await sql`
      INSERT INTO check_rounds (scheduled_at, deadline_at, decided_at, monitor_id, interval_s, expected, reported, failed, quorum, verdict, dirty)
      SELECT at, at + interval '40 seconds', at + interval '4 seconds', ${monitor_id}, 60, 3, 3, CASE WHEN ${outage('at')} THEN 3 ELSE 0 END, 2,
        CASE WHEN ${outage('at')} THEN 'down' ELSE 'up' END, false
      FROM generate_series(${from}::timestamptz, ${to}::timestamptz - interval '1 minute', interval '1 minute') AS at`;
    await sql`
      INSERT INTO monitor_state_changes (monitor_id, from_state, to_state, changed_at, source, reason, round_at)
      VALUES (${monitor_id}, 'up', 'down', date_trunc('day', ${to}::timestamptz) - interval '12 hours', 'verdict', '3 of 3 reporting nodes failed (quorum 2): no reply', NULL),
        (${monitor_id}, 'down', 'up', date_trunc('day', ${to}::timestamptz) - interval '12 hours' + interval '5 minutes', 'verdict', NULL, NULL)`;
    if (d % 10 === 0) log(`history: day ${d + 1} of ${days}`);
  }
  await sql`
    INSERT INTO round_rollups (monitor_id, hour, up_s, down_s, rounds_up, rounds_down)
    SELECT monitor_id, date_trunc('hour', scheduled_at), 60 * count(*) FILTER (WHERE verdict = 'up'), 60 * count(*) FILTER (WHERE verdict = 'down'),
      count(*) FILTER (WHERE verdict = 'up'), count(*) FILTER (WHERE verdict = 'down')
    FROM check_rounds WHERE monitor_id = ${monitor_id} GROUP BY 1, 2
    ON CONFLICT (monitor_id, hour) DO UPDATE SET up_s = EXCLUDED.up_s, down_s = EXCLUDED.down_s, rounds_up = EXCLUDED.rounds_up, rounds_down = EXCLUDED.rounds_down`;
  await dailyUptime(sql, [monitor_id]);
  const hours_until = Math.floor(end / HOUR_MS) * HOUR_MS - HOUR_MS;
  for (let h = Math.floor(start / HOUR_MS) * HOUR_MS; h < hours_until; h += HOUR_MS) await rollUpHour(sql, new Date(h));
  const days_from = Math.floor(start / DAY_MS) * DAY_MS;
  const days_until = Math.floor(hours_until / DAY_MS) * DAY_MS;
  for (let d = days_from; d < days_until; d += DAY_MS) await rollUpDay(sql, new Date(d));
  await sql`UPDATE check_jobs SET state = jsonb_build_object('rolled_until', ${new Date(hours_until).toISOString()}::text,
    'days_from', ${new Date(days_from).toISOString()}::text, 'days_until', ${new Date(days_until).toISOString()}::text) WHERE name = 'rollup'`;
}

/** Rollup rows of `count` other monitors over `days` (3 series each): realistic index sizes around the monitor measured. */
export async function otherRollups(sql: Sql, user_id: string, node_ids: string[], count: number, days: number): Promise<void> {
  const ids = await bulkMonitors(sql, user_id, node_ids, count);
  await sql`INSERT INTO check_series (monitor_id, node_id) SELECT monitor_id, node_id FROM monitor_placements WHERE monitor_id = ANY(${ids}::text[]) ON CONFLICT DO NOTHING`;
  await sql`
    INSERT INTO check_rollups (hour, series_id, checks, failures, rt_count, rt_min_ms, rt_max_ms, rt_sum_ms, rt_hist)
    SELECT h, s.id, 60, 0, 60, 40, 60, 3000, ARRAY[(check_rt_bucket(45)::bigint << 22 | 30)::int, (check_rt_bucket(55)::bigint << 22 | 30)::int]
    FROM check_series s CROSS JOIN generate_series(date_trunc('hour', now()) - make_interval(days => ${days}), date_trunc('hour', now()), interval '1 hour') AS h
    WHERE s.monitor_id = ANY(${ids}::text[])`;
  await sql`
    INSERT INTO check_rollups_daily (day, series_id, checks, failures, rt_count, rt_min_ms, rt_max_ms, rt_sum_ms, rt_hist)
    SELECT d, s.id, 1440, 0, 1440, 40, 60, 72000, ARRAY[(check_rt_bucket(45)::bigint << 22 | 720)::int, (check_rt_bucket(55)::bigint << 22 | 720)::int]
    FROM check_series s CROSS JOIN generate_series(date_trunc('day', now()) - make_interval(days => ${days}), date_trunc('day', now()), interval '1 day') AS d
    WHERE s.monitor_id = ANY(${ids}::text[])`;
  await sql`
    INSERT INTO round_rollups (monitor_id, hour, up_s, rounds_up)
    SELECT m, h, 3600, 60 FROM unnest(${ids}::text[]) AS m
    CROSS JOIN generate_series(date_trunc('hour', now()) - make_interval(days => ${days}), date_trunc('hour', now()), interval '1 hour') AS h`;
  await dailyUptime(sql, ids);
}

/** The daily uptime rows of `ids` summed from their hourly ones, as the verdict job keeps them (checks/decide.db.ts addRollupDeltas). */
async function dailyUptime(sql: Sql, ids: string[]): Promise<void> {
  await sql`DELETE FROM round_rollups_daily WHERE monitor_id = ANY(${ids}::text[])`;
  await sql`
    INSERT INTO round_rollups_daily (day, monitor_id, up_s, degraded_s, down_s, maintenance_s, rounds_up, rounds_degraded, rounds_down, no_data_s, rounds_no_data)
    SELECT date_trunc('day', hour, 'UTC'), monitor_id, sum(up_s), sum(degraded_s), sum(down_s), sum(maintenance_s), sum(rounds_up), sum(rounds_degraded),
      sum(rounds_down), sum(no_data_s), sum(rounds_no_data)
    FROM round_rollups WHERE monitor_id = ANY(${ids}::text[]) GROUP BY 1, 2`;
}

/**
 * A whole UTC `day` of ping checks of every series of `monitor_ids` (interval 60 s), stored as
 * ingest stores them (checks/ingest.db.ts insertChecks, the output compressed by output-codec.ts):
 * the results the benchmark's ingest sends (pingResult, round trip drawn for each check from 10 ms
 * to 10 + `spread_ms`), response time their rtt_avg_ms. The day's partition must exist.
 * @returns checks written
 */
export async function pingDay(sql: Sql, monitor_ids: string[], day: Date, spread_ms = 30): Promise<number> {
  const series = await sql<{ id: number; monitor_id: string }[]>`SELECT id, monitor_id FROM check_series WHERE monitor_id = ANY(${monitor_ids}::text[]) ORDER BY id`;
  let n = 0;
  for (const s of series) {
    const phase = roundPhaseMs(s.monitor_id, 60) % 60_000;
    const rows = Array.from({ length: 1440 }, (_, k) => {
      const at = new Date(day.getTime() + phase + k * 60_000).toISOString();
      const r = pingResult(s.monitor_id, at, 10 + Math.random() * spread_ms);
      const started = Date.parse(r.started_at);
      return {
        series_id: s.id, scheduled_at: at, start_offset_ms: started - Date.parse(at), duration_ms: Date.parse(r.finished_at) - started,
        response_ms: (r.output as { rtt_avg_ms: number }).rtt_avg_ms, success: true, error_class: null, error: null, assertions: '[]', output: null,
        output_z: `\\x${encodeOutput(r.output).toString('hex')}`,
      };
    });
    await insertChecks(sql, rows);
    n += rows.length;
  }
  return n;
}
