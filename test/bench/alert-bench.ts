/**
 * Benchmark (not a test): the alert path, end to end in one process on the real Postgres at
 * TEST_DATABASE_URL (a scratch database per scenario, dropped afterwards). Nodes' results are
 * handed to the real result sink, the real verdict job judges rounds and moves monitor state, the
 * alert engine opens events and pages, the delivery worker posts signed webhooks to a real HTTP
 * receiver on loopback. Engine, verdict job and delivery run with main.ts's default intervals.
 *
 *   npx tsx test/bench/alert-bench.ts [--trials 30] [--interval-s 60] [--storm 1000] [--group-wait-s 10]
 *       [--phases latency,storm] [--decide-interval-ms N] [--no-verdict-wake] [--slowest 5] [--pace-ms N]
 *       [--cpu-profile PATH] [--warmup N]
 *
 * `--phases`: `latency`, `storm` (both storms), or one storm alone: `storm-ungrouped`, `storm-grouped`.
 *
 * `--decide-interval-ms` sets the verdict job's `checks_decide_interval_ms` (default: the
 * configuration's, 1000 ms): how often the verdict job polls. Check ingest wakes it as soon as a
 * stored batch leaves a round judgeable, as in main.ts (checks/verdict-wake.ts);
 * `--no-verdict-wake` leaves it to the poll alone (the behaviour before the wake, for comparison).
 *
 * Prints JSON figures:
 * - latency: `trials` monitors (one node each, recovery_n 1, delay 0) each fail at their next round
 *   start, their node's failing result handed to the sink `check_ms` later (what the check took).
 *   `result_to_page_ms` is from the hand-over to its down page arriving at the receiver;
 *   `round_start_to_page_ms` from the round start. A target that goes down waits at most one round
 *   (`interval_s`) for its next check, so the goal "down → first notification within one round
 *   plus 2 s (p99)" is met when round_start_to_page p99 ≤ 2000 ms.
 *   `slowest`: the `--slowest` trials with the longest result_to_page, each with its stages (ms
 *   after the hand-over: lib/alert-stages.ts) and the step it waited longest for; `waits_over_500_ms`
 *   counts, per stage, the trials that waited more than 500 ms for it (a missed wake left to a
 *   1 s poll shows here). `--pace-ms N`: trial i fails at its first round start after i·N ms
 *   (default: every trial at its next round start, spread over one interval by the monitors'
 *   phases). More trials at a rate near the default's show a rare slow one sooner, e.g.
 *   `--phases latency --trials 120 --interval-s 10 --pace-ms 1000` (one a second, about 2.5
 *   minutes); 3 a second already overloads a busy 2-core machine.
 * - storm: `storm` monitors go down at once (their current rounds' failing results handed to the
 *   sink together, one batch per node); the time from the hand-over until every notification has
 *   arrived, without an alert group (one page per monitor) and with one gathering them all
 *   (`group-wait-s`: one message listing every monitor). Per-page latencies as first, median, p99
 *   and max; `stages` the same for each step's database timestamps; `cpu_s` the CPU spent from the
 *   hand-over to the last message by this process (the control plane with the receiver) and by
 *   the whole machine (busy, idle: /proc/stat), so a slower run shows whether it had less CPU.
 *   `--cpu-profile <path>` writes this process's CPU profile over that span to
 *   `<path>.cpuprofile` (`<path>.grouped.cpuprofile` for the grouped storm).
 *   `--warmup N` (default 0): before each storm, N other monitors go down through the same
 *   pipeline and are paged; the storm is measured once their deliveries are done, as on a control
 *   plane that has paged before (V8 has compiled the alert path, the pool's connections hold its
 *   prepared statements). Without it the storm is the process's first.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { roundAt } from '../../control-plane/src/checks/test-support.js';
import { httpResult } from '../../control-plane/src/checks/test-support.js';
import { startAlertPipeline } from '../../control-plane/src/alerting/pipeline-fixtures.js';
import type { Received } from '../../control-plane/src/delivery/test-support.js';
import { longestWait, traceAlertPath, type Trial } from './lib/alert-stages.js';
import { startCpuProfile } from './lib/cpu-profiler.js';
import { median, quantile } from './lib/stats.js';

const { values } = parseArgs({ options: {
  trials: { type: 'string', default: '30' }, 'interval-s': { type: 'string', default: '60' },
  storm: { type: 'string', default: '1000' }, 'group-wait-s': { type: 'string', default: '10' },
  phases: { type: 'string', default: 'latency,storm' }, 'decide-interval-ms': { type: 'string' },
  'no-verdict-wake': { type: 'boolean', default: false }, slowest: { type: 'string', default: '5' },
  'pace-ms': { type: 'string', default: '0' },
  'cpu-profile': { type: 'string' },
  warmup: { type: 'string', default: '0' },
} });
// Setting up 1,000 monitors takes minutes on a busy machine: with the longest round grace no round
// of theirs goes silent (no_data, paged) before the storm (with AGE_MS below); rounds are judged
// once complete anyway.
const PIPELINE = {
  config: {
    checks_round_grace_ms: 3_600_000,
    ...(values['decide-interval-ms'] ? { checks_decide_interval_ms: Number(values['decide-interval-ms']) } : {}),
  },
  verdict_wake: !values['no-verdict-wake'],
};
const TRIALS = Number(values.trials);
const INTERVAL_S = Number(values['interval-s']);
const STORM = Number(values.storm);
const WARMUP = Number(values.warmup);
const GROUP_WAIT_S = Number(values['group-wait-s']);
const PHASES = new Set(values.phases.split(',').map((x) => x.trim()));
// Monitors are made two rounds old (their round 0 is one they had: the storm reports it), not a
// week (seedMonitor's default): with a week, the silent-rounds job's first run (a minute in) wrote
// an hour of empty rounds for each, moving them to no_data and paging that in the trials' window.
const AGE_MS = 2 * INTERVAL_S * 1000;
const CHECK_MS = 80;
const STORM_NODES = 10;

const log = (msg: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${msg}\n`);
const r0 = (x: number) => Math.round(x);
const r2 = (x: number) => Math.round(x * 100) / 100;
/** The machine's CPU time so far (/proc/stat's cpu line, all cores, USER_HZ 100): busy (user, nice, system, irq, softirq) and idle (with iowait), in seconds. */
function machineCpu(): { busy: number; idle: number } {
  const n = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
  return { busy: (n[0]! + n[1]! + n[2]! + n[5]! + n[6]!) / 100, idle: (n[3]! + n[4]!) / 100 };
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
const stats = (xs: number[]) => ({ n: xs.length, first: r0(Math.min(...xs)), median: r0(median(xs)), p99: r0(quantile(xs, 0.99)), max: r0(Math.max(...xs)) });

/** A tap-like teardown list run in reverse at the end of a scenario. */
function scope() {
  const fns: Array<() => unknown> = [];
  return { t: { teardown: (fn: () => unknown) => void fns.unshift(fn) }, async close() { for (const fn of fns) await fn(); } };
}

const monitorOf = (r: Received) => (JSON.parse(r.body) as { data: { monitor: { id: string } | null } }).data.monitor?.id ?? null;
/** Whether `r` is the page of `monitor_id` going down (a critical firing: alerting/events.ts), not of a no_data or a resolve. */
const downPageOf = (r: Received, monitor_id: string) => {
  const data = (JSON.parse(r.body) as { data: { monitor: { id: string } | null; severity?: string } }).data;
  return data.monitor?.id === monitor_id && data.severity === 'critical';
};

/** Poll until `check` holds, every 20 ms, at most `timeout_ms`. */
async function until(what: string, check: () => boolean, timeout_ms: number): Promise<void> {
  const end = Date.now() + timeout_ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

async function latency() {
  const s = scope();
  try {
    const p = await startAlertPipeline(s.t, PIPELINE);
    const monitors = [];
    for (let i = 0; i < TRIALS; i++) monitors.push(await p.monitor({ nodes: 1, name: `latency ${i}`, interval_s: INTERVAL_S, age_ms: AGE_MS }));
    log(`latency: ${TRIALS} monitors at ${INTERVAL_S} s; each fails at its next round start`);
    const trace = await traceAlertPath(p);
    const t0 = Date.now();
    const trials: Trial[] = await Promise.all(monitors.map(async (m, i) => {
      const start = roundAt(m, 1, t0 + i * Number(values['pace-ms']));
      await sleep(Date.parse(start) + CHECK_MS - Date.now());
      const handed = performance.timeOrigin + performance.now();
      await p.report(m, start, 1);
      const stored = performance.timeOrigin + performance.now();
      await until(`page of ${m.monitor_id}`, () => p.receiver.received.some((r) => downPageOf(r, m.monitor_id)), 120_000);
      const page = p.receiver.received.find((r) => downPageOf(r, m.monitor_id))!;
      return { monitor_id: m.monitor_id, round_at: start, handed_ms: handed, stored_ms: stored, page_ms: page.at_ms };
    }));
    const traced = await trace.stages(trials);
    await trace.stop();
    const samples = trials.map((t) => ({ result_to_page_ms: t.page_ms - t.handed_ms, round_start_to_page_ms: t.page_ms - Date.parse(t.round_at) }));
    const waits: Record<string, number> = {};
    for (const t of traced) {
      const w = longestWait(t.stages);
      if (w.ms > 500) waits[w.stage] = (waits[w.stage] ?? 0) + 1;
    }
    const slowest = [...traced].sort((a, b) => (b.page_ms - b.handed_ms) - (a.page_ms - a.handed_ms)).slice(0, Number(values.slowest))
      .map((t) => ({ monitor_id: t.monitor_id, handed_at: new Date(t.handed_ms).toISOString(), result_to_page_ms: r0(t.page_ms - t.handed_ms), event_type: t.event_type, events: t.events, waited: longestWait(t.stages), stages: t.stages }));
    const from_start = stats(samples.map((x) => x.round_start_to_page_ms));
    return {
      trials: TRIALS, interval_s: INTERVAL_S, check_ms: CHECK_MS,
      result_to_page_ms: stats(samples.map((x) => x.result_to_page_ms)),
      round_start_to_page_ms: from_start,
      worst_down_to_page_p99_s: Math.round((INTERVAL_S * 1000 + from_start.p99) / 100) / 10,
      goal_met: from_start.p99 <= 2000,
      waits_over_500_ms: waits, slowest,
    };
  } finally {
    await s.close();
  }
}

async function storm(grouped: boolean) {
  const s = scope();
  try {
    const p = await startAlertPipeline(s.t, PIPELINE);
    if (grouped) await p.api('POST', '/v1/alert-groups', { name: 'storm', group_by: 'monitor_prefix', group_value: 'storm-', wait_seconds: GROUP_WAIT_S });
    const nodes = await p.nodes(STORM_NODES);
    // Made 8 at a time (each a seeded monitor and a policy through the API), in index order.
    const monitors: Array<Awaited<ReturnType<typeof p.monitor>>> = [];
    for (let i = 0; i < STORM; i += 8) {
      const ids = Array.from({ length: Math.min(8, STORM - i) }, (_, k) => i + k);
      monitors.push(...await Promise.all(ids.map((j) => p.monitor({ nodes: [nodes[j % STORM_NODES]!], name: `storm-${j}`, interval_s: INTERVAL_S, age_ms: AGE_MS }))));
    }
    const byNode = (ms: typeof monitors) => {
      const batches = new Map<string, ReturnType<typeof httpResult>[]>();
      for (const m of ms) batches.set(m.node_ids[0]!, [...(batches.get(m.node_ids[0]!) ?? []), httpResult(m.monitor_id, roundAt(m, 0), { success: false })]);
      return batches;
    };
    if (WARMUP > 0) {
      // A smaller storm first through the same pipeline (its monitors outside any group), so the
      // measured one runs as on a control plane that has paged before: its code compiled by V8,
      // its statements prepared on the pool's connections.
      const warm: typeof monitors = [];
      for (let i = 0; i < WARMUP; i += 8) {
        const ids = Array.from({ length: Math.min(8, WARMUP - i) }, (_, k) => i + k);
        warm.push(...await Promise.all(ids.map((j) => p.monitor({ nodes: [nodes[j % STORM_NODES]!], name: `warm-${j}`, interval_s: INTERVAL_S, age_ms: AGE_MS }))));
      }
      log(`warm-up: ${WARMUP} monitors go down first`);
      await Promise.all([...byNode(warm)].map(([node_id, results]) => p.ctx.deps.results.ingest(node_id, results)));
      await until('the warm-up\'s pages', () => p.receiver.received.length >= WARMUP, 600_000);
      for (;;) {
        const [open] = await p.ctx.sql<Array<{ n: number }>>`SELECT count(*)::int AS n FROM deliveries WHERE finished_at IS NULL`;
        if (open!.n === 0) break;
        await sleep(50);
      }
      p.receiver.received.length = 0;
    }
    log(`storm${grouped ? ` (grouped, wait ${GROUP_WAIT_S} s)` : ''}: ${STORM} monitors on ${STORM_NODES} nodes go down at once`);
    const batches = byNode(monitors);
    const profiler = values['cpu-profile'] ? await startCpuProfile() : null;
    const cpu0 = { node: process.cpuUsage(), machine: machineCpu() };
    const t0 = performance.timeOrigin + performance.now();
    await Promise.all([...batches].map(([node_id, results]) => p.ctx.deps.results.ingest(node_id, results)));
    const ingested_ms = performance.timeOrigin + performance.now() - t0;
    const expected = grouped ? 1 : STORM;
    await until('every notification', () => p.receiver.received.length >= expected, 600_000);
    const node_cpu = process.cpuUsage(cpu0.node);
    const machine = machineCpu();
    if (profiler) {
      const file = `${values['cpu-profile']}${grouped ? '.grouped' : ''}.cpuprofile`;
      await profiler.stop(file);
      log(`CPU profile of the storm written to ${file}`);
    }
    const listed = grouped
      ? (JSON.parse(p.receiver.received[0]!.body) as { data: { group: { monitors: unknown[] } } }).data.group.monitors.length
      : new Set(p.receiver.received.map(monitorOf)).size;
    const per_page = p.receiver.received.map((r) => r.at_ms - t0);
    const [q] = await p.ctx.sql<Array<{ n: number }>>`SELECT count(*)::int AS n FROM deliveries WHERE channel LIKE 'alert.%' AND created_at >= ${new Date(t0)}`;
    // Where the time went: each stage's database timestamps (same clock) after the hand-over
    // (the warm-up's, before it, left out).
    const since = (rows: Array<{ at: Date }>) => stats(rows.map((r) => r.at.getTime() - t0).filter((ms) => ms >= 0));
    const stages = {
      state_changed_ms: since(await p.ctx.sql<Array<{ at: Date }>>`SELECT recorded_at AS at FROM monitor_state_changes WHERE to_state = 'down'`),
      event_opened_ms: since(await p.ctx.sql<Array<{ at: Date }>>`SELECT created_at AS at FROM alert_events`),
      delivery_queued_ms: since(await p.ctx.sql<Array<{ at: Date }>>`SELECT created_at AS at FROM deliveries WHERE channel LIKE 'alert.%'`),
      delivery_done_ms: since(await p.ctx.sql<Array<{ at: Date }>>`SELECT finished_at AS at FROM deliveries WHERE channel LIKE 'alert.%' AND finished_at IS NOT NULL`),
    };
    return {
      monitors: STORM, warmup: WARMUP, grouped, group_wait_s: grouped ? GROUP_WAIT_S : null, ingest_ms: r0(ingested_ms),
      messages: p.receiver.received.length, deliveries_queued: q!.n, monitors_covered: listed,
      all_out_s: Math.round((Math.max(...per_page)) / 100) / 10,
      // CPU from the hand-over to the last message: this process (control plane, receiver, bench)
      // and the whole machine (Postgres is most of the rest), in seconds.
      cpu_s: { this_process: r2((node_cpu.user + node_cpu.system) / 1e6), machine_busy: r2(machine.busy - cpu0.machine.busy), machine_idle: r2(machine.idle - cpu0.machine.idle) },
      page_ms: stats(per_page), stages,
    };
  } finally {
    await s.close();
  }
}

const out: Record<string, unknown> = {};
try {
  if (PHASES.has('latency')) out.latency = await latency();
  if (PHASES.has('storm') || PHASES.has('storm-ungrouped')) out.storm_ungrouped = await storm(false);
  if (PHASES.has('storm') || PHASES.has('storm-grouped')) out.storm_grouped = await storm(true);
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
} catch (err) {
  log(`failed: ${(err as Error).stack ?? String(err)}`);
  process.exitCode = 1;
}
process.exit();
