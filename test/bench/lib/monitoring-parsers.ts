/**
 * Figures of the monitoring benchmarks for bench/out/bench.md (test/bench/run-all.ts), read from
 * what each script prints today (see its header). A missing figure is left out (a script run with
 * only some of its parts); output with none of them throws, and the runner reports the script as
 * failed with the message instead of inventing numbers.
 */
import type { Figure } from './markdown.js';
import { figuresFromProbeTables, parseMarkdownTables } from './markdown.js';
import type { Parsed } from './parsers.js';

const fig = (figure: string, ours: string, goal = ''): Figure => ({ figure, ours, peer: '', goal, difference: '' });
const num = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

/** The last JSON object printed from the start of a line (pretty-printed or on one line). @throws Error when there is none */
function lastJson(text: string): any {
  const end = text.lastIndexOf('}');
  for (let start = text.lastIndexOf('{', end); start >= 0; start = start > 0 ? text.lastIndexOf('{', start - 1) : -1) {
    if (start > 0 && text[start - 1] !== '\n') continue;
    try { return JSON.parse(text.slice(start, end + 1)); } catch { /* an inner object: look further back */ }
  }
  throw new Error('no JSON object in the output');
}

/** Figures only where every value they need is a number; throws when none are. */
function collect(rows: Array<[boolean, () => Figure]>, what: string): Figure[] {
  const figures = rows.filter(([ok]) => ok).map(([, f]) => f());
  if (figures.length === 0) throw new Error(`none of the ${what} figures in the output`);
  return figures;
}

/** checks-bench.ts: ingest rate, bytes per stored and per packed check, disk, uptime and stats query latency (its JSON). */
export function parseChecks(stdout: string): Parsed {
  const j = lastJson(stdout);
  const q = j.queries ?? {};
  const pq = (k: string) => `${q[k].p50_ms} / ${q[k].p99_ms} ms`;
  const has = (k: string) => q[k] && num(q[k].p50_ms) && num(q[k].p99_ms);
  return {
    figures: collect([
      [num(j.ingest_results_per_s), () => fig(`check results ingested per second (${j.ingest_results} ping results of ${j.monitors} monitors, batches of ${j.batch}, ${j.per_node ? `each node's in order, ${j.nodes} nodes at once` : `${j.concurrency} at a time`}; CPU this process / Postgres ${j.ingest_node_cpu_pct} / ${j.ingest_pg_cpu_pct} %)`, `${j.ingest_results_per_s}/s`, '≥ 25,000/s')],
      [num(j.decide_rounds_per_s), () => fig('rounds judged per second (verdict job on that backlog)', `${j.decide_rounds_per_s}/s`)],
      [num(j.steady_results_per_s), () => fig(`steady state: ${j.monitors} monitors × 3 nodes at 60 s in real time, CPU this process / Postgres`, `${j.steady_node_cpu_pct} / ${j.steady_pg_cpu_pct} % of a core`)],
      [num(j.bytes_per_ping_check), () => fig('bytes per stored check (ping; heap + TOAST + indexes, after VACUUM) / per round', `${j.bytes_per_ping_check} / ${j.bytes_per_round} B`)],
      [num(j.compacted_bytes_per_ping_check), () => fig('bytes per stored check after VACUUM FULL / per round', `${j.compacted_bytes_per_ping_check} / ${j.compacted_bytes_per_round} B`)],
      [num(j.projection_200_monitors_90d_1_node_gb), () => fig(`disk for 200 ping monitors at 60 s kept 90 days, 1 / 3 nodes (Uptime Kuma users report about ${j.reference_uptime_kuma_gb} GB)`, `${j.projection_200_monitors_90d_1_node_gb} / ${j.projection_200_monitors_90d_3_nodes_gb} GB`)],
      [num(j.packed_bytes_per_check), () => fig(`bytes per packed check (a day of ping checks past the rounds retention; the same checks raw: ${j.packed_raw_bytes_per_check} B)`, `${j.packed_bytes_per_check} B`, '≤ 15 B')],
      [num(j.packed_projection_200_monitors_90d_1_node_gb), () => fig('the same disk, raw for the 8-day rounds retention then packed, 1 / 3 nodes', `${j.packed_projection_200_monitors_90d_1_node_gb} / ${j.packed_projection_200_monitors_90d_3_nodes_gb} GB`, '≤ 2 / 5 GB')],
      [has('uptime_90d'), () => fig(`uptime query, period 90d, over ${j.history_days ?? 90} days of one monitor's history beside other monitors' rollups (p50 / p99)`, pq('uptime_90d'), 'p99 < 5 ms')],
      [has('uptime_90d_cold'), () => fig('  the same, timed first: a process just started (20 calls before; p50 / p99)', pq('uptime_90d_cold'))],
      [has('uptime_30d'), () => fig('uptime query, period 30d (p50 / p99)', pq('uptime_30d'), 'p99 < 50 ms')],
      [has('stats_90d_daily'), () => fig(`stats query, ${j.history_days ?? 90} days by day (p50 / p99)`, pq('stats_90d_daily'), 'p99 < 10 ms')],
      [has('checks_24h_page1'), () => fig('checks list, last 24 h, first page (p50 / p99)', pq('checks_24h_page1'), 'p99 < 50 ms')],
    ], 'checks-bench'),
    note: num(j.load_average?.[0]) ? `load average at the end ${j.load_average.join(' ')}` : undefined,
  };
}

/** monitor-bench.ts: monitor list (and, when printed, uptime) latency with its monitors, placement figures (its JSON). */
export function parseMonitors(stdout: string): Parsed {
  const j = lastJson(stdout);
  const n = Number(j.monitors).toLocaleString('en-US');
  return {
    figures: collect([
      [num(j.list_page100_p99_ms), () => fig(`GET /v1/monitors?limit=100, random pages, ${n} monitors (p50 / p99)`, `${j.list_page100_p50_ms} / ${j.list_page100_p99_ms} ms`, 'p99 < 10 ms')],
      [num(j.list_page100_cold_p99_ms), () => fig('  the same, timed first: before any list request warmed the process (p50 / p99)', `${j.list_page100_cold_p50_ms} / ${j.list_page100_cold_p99_ms} ms`)],
      [num(j.list_query_p99_ms), () => fig('  its list query alone (p50 / p99)', `${j.list_query_p50_ms} / ${j.list_query_p99_ms} ms`)],
      [num(j.uptime_p99_ms), () => fig(`GET /v1/monitors/{id}/uptime?period=24h, random monitors among ${n} (no check history; p50 / p99)`, `${j.uptime_p50_ms} / ${j.uptime_p99_ms} ms`, 'p99 < 50 ms')],
      [num(j.create_p99_ms), () => fig(`POST /v1/monitors, placed at once on 3 of ${j.nodes} nodes (p50 / p99; ${j.api_creates} through the API)`, `${j.create_p50_ms} / ${j.create_p99_ms} ms`)],
      [num(j.full_set_1000_p99_ms), () => fig(`a node with 1,000 assignments connects: whole set received (p50 / p99, ${j.full_set_frames} frames)`, `${j.full_set_1000_p50_ms} / ${j.full_set_1000_p99_ms} ms`, '< 200 ms')],
      [num(j.replace_dead_node_ms), () => fig(`node lost past the grace: its ${j.replace_dead_node_monitors} monitors placed elsewhere (${j.left_on_dead_node} left)`, `${j.replace_dead_node_ms} ms`, '< 5 s')],
    ], 'monitor-bench'),
  };
}

/**
 * Any script: its five-column Markdown tables (measure | ours | peer | difference | goal) when it
 * prints some, else every number of its last JSON object as `key: value` (for a script whose
 * output this runner does not know yet, e.g. alert-bench.ts).
 */
export function parseAny(stdout: string): Parsed {
  if (parseMarkdownTables(stdout).some((t) => t.headers.length === 5)) return { figures: figuresFromProbeTables(stdout).figures };
  const j = lastJson(stdout);
  const figures: Figure[] = [];
  const walk = (prefix: string, v: unknown) => {
    if (num(v)) figures.push(fig(prefix, String(v)));
    else if (v && typeof v === 'object' && !Array.isArray(v)) for (const [k, x] of Object.entries(v)) walk(prefix ? `${prefix}.${k}` : k, x);
  };
  walk('', j);
  if (figures.length === 0) throw new Error('no figures (no five-column table, no numbers in the JSON)');
  return { figures, note: 'figures as the script printed them (JSON keys)' };
}

/**
 * alert-bench.ts: target down → notification received (its JSON: `latency` with
 * `round_start_to_page_ms` and `result_to_page_ms` as {median, p99}; `storm_ungrouped` and
 * `storm_grouped` with `all_out_s` and `page_ms`). Output of another shape is read by {@link parseAny}.
 */
export function parseAlert(stdout: string): Parsed {
  const j = lastJson(stdout);
  const l = j.latency ?? {};
  const mp = (x: any) => x && num(x.median) && num(x.p99);
  const rows: Array<[boolean, () => Figure]> = [
    [mp(l.round_start_to_page_ms), () => fig(`target down (its round starts) → notification received, median / p99 (${l.trials} monitors, the check takes ${l.check_ms} ms)`, `${l.round_start_to_page_ms.median} / ${l.round_start_to_page_ms.p99} ms`, 'p99 ≤ 2000 ms')],
    [mp(l.result_to_page_ms), () => fig('  from the node result handed over → notification received, median / p99', `${l.result_to_page_ms.median} / ${l.result_to_page_ms.p99} ms`)],
    [num(l.worst_down_to_page_p99_s), () => fig(`  worst case with ${l.interval_s} s rounds (an outage just after a round began), p99`, `${l.worst_down_to_page_p99_s} s`, `${l.interval_s} s + 2 s`)],
  ];
  for (const [key, what] of [['storm_ungrouped', 'one page each'], ['storm_grouped', 'one alert group gathers them']] as const) {
    const s = j[key];
    if (s && num(s.all_out_s)) rows.push([true, () => fig(`${s.monitors} monitors down at once, ${what}: every notification received (${s.messages} messages${mp(s.page_ms) ? `; per page median / p99 ${s.page_ms.median} / ${s.page_ms.p99} ms` : ''})`, `${s.all_out_s} s`)]);
  }
  if (!rows.some(([ok]) => ok)) return parseAny(stdout);
  return { figures: collect(rows, 'alert-bench') };
}
