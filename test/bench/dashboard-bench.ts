/**
 * Benchmark (not a test): `GET /v1/dashboards/{id}/data` over a 90-day range for a dashboard
 * covering 1,000 monitors (the "monitor overview" template: uptime stat, gauge and donut over all
 * of them, a 20-row status strip by day, a 50-row table worst first, alert events, and a p95
 * latency time series of 5 monitors on 3 nodes each), against a real listening control plane on
 * 127.0.0.1 and the real Postgres at TEST_DATABASE_URL (a scratch database, dropped afterwards).
 * Seeded: 90 days of daily uptime rollups per monitor and the last 2 days of hourly ones (the
 * range's edge hours), and 90 days of daily check rollups for the latency monitors, with the
 * rollup job's marks set so statistics read them. Requests run one after another, `--n` times
 * after a warm-up; the figures are the median and p99 latency, ms.
 * Goal (docs/api/dashboards.md "Widget data"): under 200 ms on the 2-core test machine.
 *
 *   npx tsx test/bench/dashboard-bench.ts [--monitors 1000] [--n 50]
 */
import { parseArgs } from 'node:util';
import { newId } from '@vantage/shared-protocol';
import { seedNodes } from '../../control-plane/src/checks/test-support.js';
import { call, registerUser, testApp } from '../../control-plane/src/test-support/app.js';

const { values } = parseArgs({ options: { monitors: { type: 'string', default: '1000' }, n: { type: 'string', default: '50' } } });
const monitors = Number(values.monitors);
const n = Number(values.n);
const DAYS = 90;
const H = 3_600_000;
const D = 86_400_000;
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))]!;

const teardowns: Array<() => unknown> = [];
const t = { teardown: (fn: () => unknown) => void teardowns.unshift(fn) };
try {
  const { app, url, sql } = await testApp(t, { config: { rate_limit_keyed: 100_000_000, rate_limit_anonymous: 100_000_000 } });
  const user = await registerUser(app);
  const nodes = await seedNodes(sql, 3);
  const ids = Array.from({ length: monitors }, () => newId('monitor'));
  const seed_start = Date.now();
  for (let k = 0; k < ids.length; k += 1000) {
    const part = ids.slice(k, k + 1000);
    await sql`
      INSERT INTO monitors (id, user_id, name, type, target, config, interval_s, node_count, state)
      SELECT id, ${user.user_id}, 'monitor ' || lpad(i::text, 5, '0'), 'http', 'https://example.com/', '{}'::jsonb, 60, 3, 'up'
      FROM unnest(${part}::text[]) WITH ORDINALITY AS u(id, i)`;
  }
  const today = Math.floor(Date.now() / D) * D;
  const hourNow = Math.floor(Date.now() / H) * H;
  // Daily uptime rows for 90 days (some monitors with downtime), hourly rows for the last 2 days.
  for (let k = 0; k < ids.length; k += 100) {
    const part = ids.slice(k, k + 100);
    await sql`
      INSERT INTO round_rollups_daily (monitor_id, day, up_s, down_s, rounds_up, rounds_down)
      SELECT m, ${new Date(today)}::timestamptz - d * interval '1 day', 86400 - (CASE WHEN (i + d) % 37 = 0 THEN 900 ELSE 0 END),
        CASE WHEN (i + d) % 37 = 0 THEN 900 ELSE 0 END, 1440, 0
      FROM unnest(${part}::text[]) WITH ORDINALITY AS u(m, i), generate_series(1, ${DAYS}) AS d`;
    await sql`
      INSERT INTO round_rollups (monitor_id, hour, up_s, rounds_up)
      SELECT m, ${new Date(hourNow)}::timestamptz - h * interval '1 hour', 3600, 60
      FROM unnest(${part}::text[]) AS m, generate_series(0, 47) AS h`;
  }
  // Daily check rollups of the 5 latency monitors (the template takes the first 5 by name).
  const latency = ids.slice(0, 5);
  for (const m of latency) {
    for (const node of nodes) {
      const [s] = await sql`INSERT INTO check_series (monitor_id, node_id) VALUES (${m}, ${node}) RETURNING id`;
      await sql`
        INSERT INTO check_rollups_daily (day, series_id, checks, failures, rt_count, rt_min_ms, rt_max_ms, rt_sum_ms, rt_hist)
        SELECT ${new Date(today)}::timestamptz - d * interval '1 day', ${s!.id}, 1440, 3, 1437, 20, 400, 1437 * 80.0,
          ARRAY[(check_rt_bucket(60) << 22) | 700, (check_rt_bucket(90) << 22) | 600, (check_rt_bucket(300) << 22) | 137]
        FROM generate_series(1, ${DAYS}) AS d`;
    }
  }
  await sql`UPDATE check_jobs SET state = ${sql.json({ rolled_until: new Date(hourNow).toISOString(), days_from: new Date(today - DAYS * D).toISOString(), days_until: new Date(today).toISOString() })} WHERE name = 'rollup'`;
  await sql`VACUUM ANALYZE monitors`;
  await sql`VACUUM ANALYZE round_rollups_daily`;
  await sql`VACUUM ANALYZE round_rollups`;
  await sql`VACUUM ANALYZE check_rollups_daily`;
  const seed_s = (Date.now() - seed_start) / 1000;

  const d = await call(app, 'POST', '/v1/dashboards', { token: user.access_token, body: { name: 'Bench', template_key: 'monitor_overview' } });
  if (d.status !== 201) throw new Error(`dashboard: ${d.status} ${JSON.stringify(d.body)}`);
  const path = `${url}/v1/dashboards/${d.body.data.id}/data?from=-${DAYS}d`;
  const once = async () => {
    const start = performance.now();
    const res = await fetch(path, { headers: { authorization: `Bearer ${user.access_token}` } });
    const body = await res.json() as any;
    const ms = performance.now() - start;
    if (res.status !== 200) throw new Error(`data: ${res.status} ${JSON.stringify(body)}`);
    const failed = body.data.widgets.filter((w: any) => w.error);
    if (failed.length > 0) throw new Error(`widgets failed: ${JSON.stringify(failed)}`);
    return { ms, body };
  };
  const first = await once();
  const table = first.body.data.widgets.find((w: any) => w.type === 'table').data;
  if (table.total !== monitors) throw new Error(`the table counted ${table.total} monitors, not ${monitors}`);
  for (let i = 0; i < 3; i++) await once();
  const times: number[] = [];
  for (let i = 0; i < n; i++) times.push((await once()).ms);
  console.log(JSON.stringify({
    endpoint: `GET /v1/dashboards/{id}/data, ${DAYS} days, ${monitors} monitors (monitor_overview template: ${first.body.data.widgets.length} widgets)`,
    requests: n, seed_s: Math.round(seed_s), response_bytes: JSON.stringify(first.body).length,
    latency_median_ms: Math.round(quantile(times, 0.5) * 10) / 10, latency_p99_ms: Math.round(quantile(times, 0.99) * 10) / 10,
    goal_ms: 200,
  }, null, 2));
} finally {
  for (const fn of teardowns) await fn();
}
