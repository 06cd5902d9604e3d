/**
 * The runner's readers of the monitoring benchmarks, on output captured from the real scripts
 * (2026-11-23, `pnpm bench --quick`): figures come out in the right columns, a part the script did
 * not run is left out, and output of another shape is refused rather than misread.
 */
import t from 'tap';
import { parseAlert, parseAny, parseChecks, parseMonitors } from './monitoring-parsers.js';

const MONITOR = `09:00:00 5000 monitors inserted and placed by the job
{"monitors": 5000, "nodes": 200, "concurrency": 16, "load_average": [14.7, 15.9, 13.4], "create_p50_ms": 408.6, "create_p99_ms": 645.4, "api_creates": 500, "creates_per_s": 38, "bulk_place_per_s": 1463, "list_page100_p50_ms": 26.6, "list_page100_p99_ms": 177.7, "list_query_p50_ms": 10.9, "list_query_p99_ms": 115.5, "uptime_p50_ms": 12.5, "uptime_p99_ms": 67.2, "full_set_1000_p50_ms": 68.9, "full_set_1000_p99_ms": 173.8, "full_set_frames": 2, "full_set_validate_p50_ms": 73.5, "replace_dead_node_monitors": 1000, "replace_dead_node_ms": 334, "left_on_dead_node": 0, "monitors_short_after": 0}
`;
const CHECKS = `09:00:00 history ready
{"monitors": 1000, "nodes": 20, "batch": 100, "concurrency": 8, "phases": ["ingest", "bytes", "steady", "queries"], "ingest_results": 9000, "ingest_results_per_s": 2931, "ingest_node_cpu_pct": 37, "ingest_pg_cpu_pct": 16.3, "decide_rounds_per_s": 1273, "decide_node_cpu_pct": 10, "decide_pg_cpu_pct": 32.7, "bytes_per_ping_check": 195, "bytes_heap_per_check": 139, "bytes_toast_per_check": 5, "bytes_index_per_check": 46, "bytes_per_round": 388, "compacted_bytes_per_ping_check": 180, "compacted_bytes_per_round": 221, "steady_results": 534, "steady_results_per_s": 52.7, "steady_node_cpu_pct": 3.9, "steady_pg_cpu_pct": 4.3, "rollup_bytes_per_series_hour": 150, "rollup_bytes_per_monitor_hour": 202, "projection_200_monitors_90d_1_node_gb": 6.09, "projection_200_monitors_90d_3_nodes_gb": 16.32, "compacted_projection_200_monitors_90d_1_node_gb": 5.33, "compacted_projection_200_monitors_90d_3_nodes_gb": 14.81, "reference_uptime_kuma_gb": 6, "reference_uptime_kuma_bytes_per_check": 231, "history_days": 30, "others": 20, "uptime_90d": {"from": "2026-08-25T01:44:07.577Z", "to": "2026-11-23T01:44:07.577Z", "period": "90d", "uptime": 0.996528, "uptime_percent": 99.653, "monitored_s": 2592000, "up_s": 2583000, "degraded_s": 0, "downtime_s": 9000, "maintenance_s": 0, "incidents": 30, "mttr_s": 300, "rounds": {"up": 43050, "degraded": 0, "down": 150}}, "queries": {"uptime_90d": {"p50_ms": 10.9, "p99_ms": 46.6}, "uptime_30d": {"p50_ms": 14.1, "p99_ms": 58.9}, "stats_90d_daily": {"p50_ms": 24.6, "p99_ms": 56}, "stats_90d_daily_by_node": {"p50_ms": 26.6, "p99_ms": 64.6}, "stats_24h_5min_raw": {"p50_ms": 57.4, "p99_ms": 120}, "checks_24h_page1": {"p50_ms": 25.7, "p99_ms": 68.5}, "state_changes": {"p50_ms": 6.5, "p99_ms": 33.3}, "monitor_read": {"p50_ms": 1.8, "p99_ms": 22.1}}, "load_average": [12, 15.9, 13.2]}
`;

t.test('monitor-bench: list, uptime, create, full set and re-placement figures', async (t) => {
  const { figures } = parseMonitors(MONITOR);
  const by = (re: RegExp) => figures.find((f) => re.test(f.figure));
  t.equal(by(/^GET \/v1\/monitors\?limit=100, random pages, 5,000 monitors/)?.ours, '26.6 / 177.7 ms');
  t.equal(by(/uptime\?period=24h, random monitors among 5,000/)?.ours, '12.5 / 67.2 ms');
  t.equal(by(/node lost past the grace/)?.ours, '334 ms');
  t.equal(by(/whole set received/)?.goal, '< 200 ms');
  t.notOk(by(/timed first/), 'no cold row from a run that printed none');
  const warmed = parseMonitors(JSON.stringify({ ...JSON.parse(MONITOR.slice(MONITOR.indexOf('{'))), list_page100_cold_p50_ms: 30.1, list_page100_cold_p99_ms: 190.2 }));
  t.equal(warmed.figures.find((f) => /timed first/.test(f.figure))?.ours, '30.1 / 190.2 ms', 'the cold list row beside the warm one');
});

t.test('checks-bench: ingest rate, bytes per check, query latency; parts not run are left out', async (t) => {
  const { figures, note } = parseChecks(CHECKS);
  const by = (re: RegExp) => figures.find((f) => re.test(f.figure));
  t.match(by(/^check results ingested per second/)?.ours, /^\d+\/s$/);
  t.match(by(/^bytes per stored check \(ping/)?.ours, /^\d+ \/ \d+ B$/);
  t.match(by(/^uptime query, period 90d, over 30 days/)?.ours, /^[\d.]+ \/ [\d.]+ ms$/);
  t.match(note, /load average/);
  const run = JSON.parse(CHECKS.slice(CHECKS.indexOf('{')));
  run.queries.uptime_90d_cold = { p50_ms: 2.1, p99_ms: 7.8 };
  t.equal(parseChecks(JSON.stringify(run)).figures.find((f) => /timed first/.test(f.figure))?.ours, '2.1 / 7.8 ms', 'the cold uptime row');
  const only_ingest = JSON.parse(CHECKS.slice(CHECKS.indexOf('{')));
  for (const k of Object.keys(only_ingest)) if (/^(bytes|compacted|projection|steady)/.test(k) || k === 'queries') delete only_ingest[k];
  const partial = parseChecks(JSON.stringify(only_ingest, null, 2));
  t.ok(partial.figures.some((f) => /ingested per second/.test(f.figure)));
  t.notOk(partial.figures.some((f) => /bytes per stored check/.test(f.figure)), 'no bytes figure without the bytes part');
});

t.test('alert-bench: its known figures; another shape read as JSON numbers; no output refused', async (t) => {
  const out = JSON.stringify({ latency: { trials: 30, interval_s: 60, check_ms: 80, result_to_page_ms: { median: 900, p99: 1500 }, round_start_to_page_ms: { median: 1000, p99: 1600 }, worst_down_to_page_p99_s: 61.6 } }, null, 2);
  const { figures } = parseAlert(`log line\n${out}\n`);
  t.equal(figures[0]!.ours, '1000 / 1600 ms');
  t.equal(figures[0]!.goal, 'p99 ≤ 2000 ms');
  t.equal(figures.length, 3);
  t.same(parseAlert('{"total": {"down_to_page_ms": 812}}\n').figures.map((f) => [f.figure, f.ours]), [['total.down_to_page_ms', '812']]);
  t.throws(() => parseAlert('no figures at all'), /no JSON object/);
  t.throws(() => parseMonitors('{"monitors": 10}\n'), /none of the monitor-bench figures/);
  t.throws(() => parseAny('{"name": "x"}\n'), /no figures/);
});
