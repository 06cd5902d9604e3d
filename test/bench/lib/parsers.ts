/**
 * Turn each benchmark script's output into figures for bench/out/bench.md. Each parser matches
 * what its script prints today (see the script's header); a change of shape throws, and the
 * runner then reports that script as failed with the message instead of inventing numbers.
 */
import { figuresFromProbeTables, type Figure } from './markdown.js';

const fig = (figure: string, ours: string | number, goal = '', peer = '', difference = ''): Figure => ({ figure, ours: String(ours), peer, goal, difference });

/** The last `{ … }` block of `text` as JSON. @throws Error when there is none or it does not parse */
function lastJson(text: string): any {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end < start) throw new Error('no JSON object in the output');
  return JSON.parse(text.slice(start, end + 1));
}

/** The capture groups of `re` in `text`. @throws Error naming `what` when the line is missing */
function grab(text: string, re: RegExp, what: string): string[] {
  const m = re.exec(text);
  if (!m) throw new Error(`no "${what}" line in the output`);
  return m.slice(1);
}

/** What a parser makes of one script's output: its figures and, optionally, a line to print under them. */
export interface Parsed {
  figures: Figure[];
  note?: string;
}

/**
 * probe-bench-*.ts and e2e-bench.ts: their Markdown tables (measure | ours | peer | difference |
 * goal). The note names what the script's peer column holds (its header), since some scripts put
 * a second figure of their own there (e.g. peak RSS).
 */
export function parseProbeTables(stdout: string): Parsed {
  const { figures, peer_names } = figuresFromProbeTables(stdout);
  return { figures, note: `peer column as printed by the script: ${peer_names.map((n) => `"${n}"`).join(', ')}` };
}

/** hub-bench.ts: its JSON (memory per node, control-plane added latency, tasks/s). */
export function parseHub(stdout: string): Parsed {
  const j = lastJson(stdout);
  const l = j.added_latency_post_to_last_result;
  const f = (x: { probes: number; p50_ms: number; p99_ms: number }) => `${x.p50_ms} / ${x.p99_ms} ms`;
  return { figures: [
    fig(`simulated nodes connected and enrolled (one instance)`, `${j.nodes} in ${j.enroll_s} s`),
    fig('memory per connected node: heap+external / RSS', `${(j.memory_per_node_bytes.heap_and_external / 1024).toFixed(1)} / ${(j.memory_per_node_bytes.rss / 1024).toFixed(1)} KiB`),
    fig(`control-plane time POST → last result stored, fan-out 10 (p50 / p99 of ${l.fanout_10.probes})`, f(l.fanout_10)),
    fig(`control-plane time POST → last result stored, fan-out 100 (p50 / p99 of ${l.fanout_100.probes})`, f(l.fanout_100)),
    fig(`probe tasks completed per second (${j.throughput.probes} probes × ${j.throughput.tasks / j.throughput.probes} nodes in flight)`, `${j.throughput.tasks_per_s}/s`),
  ] };
}

/**
 * hub-liveness-bench.ts: its JSON (connection storm, idle event-loop delay and row writes, close
 * wave, graceful and crash restarts), each beside the goal the hub is held to.
 */
export function parseLiveness(stdout: string): Parsed {
  const j = lastJson(stdout);
  const n = Number(j.nodes);
  const at = n >= 10_000 ? '' : ' (at 10,000 nodes)';
  const back = (r: { all_back_after_listen_s: number; failed_attempts: number }) => `${r.all_back_after_listen_s} s (${r.failed_attempts} attempts refused meanwhile)`;
  const agents = `${n.toLocaleString('en-US')} agents`;
  return { figures: [
    fig(`${agents}: all connect at once: all online (failed attempts)`, `${j.storm.all_online_s} s (${j.storm.failed_attempts})`),
    fig(`${agents}: idle ${j.idle.seconds} s: control-plane event-loop delay p99 / max`, `${j.idle.event_loop_delay_p99_ms} / ${j.idle.event_loop_delay_max_ms} ms`),
    fig(`${agents}: idle: \`nodes\` row updates per minute`, j.idle.node_row_updates_per_min, 'no write per heartbeat'),
    fig(`${agents}: all close at once: still online after 2 s / 10 s; all offline after`, `${j.close_wave.online_after_2s} / ${j.close_wave.online_after_10s}; ${j.close_wave.all_offline_s} s`, 'a dead link found within 10 s'),
    fig(`${agents}: graceful restart (${j.restart.gap_ms} ms gap): all back after listen`, back(j.restart.graceful), `< 10 s${at}`),
    fig(`${agents}: crash restart, sockets cut as by kill -9 (${j.restart.gap_ms} ms gap): all back after listen`, back(j.restart.crash), `< 10 s${at}`),
  ] };
}

/** agent-bench.ts: its text lines (outbox absorb, replay and drain, idle RSS and CPU). */
export function parseAgent(stdout: string): Parsed {
  const [absorb_n, absorb_s, absorb_rate] = grab(stdout, /outbox absorb: (\d+) results .* in ([\d.]+) s = (\d+) results\/s/, 'outbox absorb');
  const [replay_n, connected_s, , empty_s] = grab(stdout, /replay: (\d+) results; process start to connected ([\d.]+) s; all delivered ([\d.]+) s; outbox empty ([\d.]+) s/, 'replay');
  const [drain_rate, dups] = grab(stdout, /drain rate .*: (\d+) results\/s \(duplicates seen by stub: (\d+)\)/, 'drain rate');
  const [rss_after, cpu_after, idle_s] = grab(stdout, /idle agent \(after replay\): RSS ([\d.]+) MB; CPU ([\d.]+) % over (\d+) s/, 'idle agent (after replay)');
  const [rss_fresh, cpu_fresh] = grab(stdout, /idle agent \(fresh start\): RSS ([\d.]+) MB; CPU ([\d.]+) %/, 'idle agent (fresh start)');
  return { figures: [
    fig(`outbox absorb, one transaction per result (${absorb_n} in ${absorb_s} s)`, `${absorb_rate} results/s`),
    fig(`replay of ${replay_n} buffered results: process start → outbox empty (connected after ${connected_s} s)`, `${empty_s} s`),
    fig('drain rate, connected → outbox empty (duplicates seen by the stub)', `${drain_rate} results/s (${dups})`),
    fig(`idle agent RSS: fresh start / after the replay`, `${rss_fresh} / ${rss_after} MB`),
    fig(`idle agent CPU over ${idle_s} s: fresh start / after the replay`, `${cpu_fresh} / ${cpu_after} % of a core`),
  ] };
}

/** api-bench.ts: its JSON (autocannon requests/s and latency of an authenticated GET). */
export function parseApi(stdout: string): Parsed {
  const j = lastJson(stdout);
  return { figures: [
    fig(`${j.endpoint}: requests/s (${j.connections} connections, ${j.duration_s} s, ${j.failed} failed)`, `${j.requests_per_s}/s`),
    fig('its latency p50 / p99 / max', `${j.latency_p50_ms} / ${j.latency_p99_ms} / ${j.latency_max_ms} ms`),
  ] };
}

/** status-page-bench.ts: views/s and p99 from the page cache, against the page built for every view (same run). */
export function parseStatusPage(stdout: string): Parsed {
  const j = lastJson(stdout);
  const ratio = j.built_browser.requests_per_s > 0 ? `${(j.cached_browser.requests_per_s / j.built_browser.requests_per_s).toFixed(1)}x` : '';
  return { figures: [
    { figure: `${j.endpoint}: views/s as a browser asks (br), median of ${j.rounds} x ${j.duration_s} s (${j.connections} connections, load ${j.load_average})`, ours: `${j.cached_browser.requests_per_s}/s (cache)`, peer: `${j.built_browser.requests_per_s}/s (built per view)`, goal: '2000/s', difference: ratio },
    { figure: 'its latency p99', ours: `${j.cached_browser.latency_p99_ms} ms`, peer: `${j.built_browser.latency_p99_ms} ms`, goal: '< 50 ms', difference: '' },
    { figure: 'from cache without compression: views/s, p99', ours: `${j.cached_identity.requests_per_s}/s, ${j.cached_identity.latency_p99_ms} ms`, peer: '', goal: '', difference: '' },
  ] };
}

/** dashboard-bench.ts: one dashboard's data over 90 days, median and p99 of sequential requests. */
export function parseDashboard(stdout: string): Parsed {
  const j = lastJson(stdout);
  return { figures: [
    { figure: `${j.endpoint}: median of ${j.requests}`, ours: `${j.latency_median_ms} ms`, peer: '', goal: `< ${j.goal_ms} ms`, difference: '' },
    { figure: 'its p99', ours: `${j.latency_p99_ms} ms`, peer: '', goal: '', difference: '' },
  ] };
}
