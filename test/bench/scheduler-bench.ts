/**
 * Benchmark (not a test): how late a node starts its monitor rounds when it holds 10,000
 * assignments (node-agent/src/assignments/scheduler.ts; docs/api/monitors.md "Rounds").
 *
 *   npx tsx test/bench/scheduler-bench.ts [--assignments 10000] [--interval-s 60] [--agent-s 150] [--alone-s 60] [--blackbox-s 60] [--timeline]
 *     [--agent-node-args='--cpu-prof --cpu-prof-dir=DIR'] [--from-build]
 *   (--timeline: lateness p99 and max per 5 s of scheduled time, on stderr: where late rounds cluster;
 *   --agent-node-args (with `=`): options for the agent's `node`, split on spaces, e.g. `--cpu-prof
 *   --cpu-prof-dir=DIR` (a V8 CPU profile written when it exits: test/bench/lib/cpu-profile-top.ts
 *   reads it) or `--perf-basic-prof` (JavaScript names for `perf record -g -p PID`). A profiler
 *   costs CPU itself: do not quote that run's CPU figures;
 *   --from-build: the agent runs as operators run it, from the installer's bundle
 *   (installer/build-bundle.ts, built into bench/out/agent-bundle/ when the sources changed since
 *   the last build, unpacked into a scratch folder) with NODE_ENV=production as the installer's
 *   service sets it, not from the TypeScript sources under tsx)
 *
 * Three measurements, one after the other:
 * 1. The real agent: `node-agent run` as a child process (through the tsx loader, as in
 *    development, or the bundle with --from-build), connected to an in-process control-plane stub that speaks the real protocol
 *    and acks results (node-agent/src/connection/test-support/control-plane-stub.ts). Its state DB
 *    holds `assignments` TCP monitors at `interval-s` (phases spread by the monitor id, as the
 *    control plane assigns them) against a loopback TCP server; the agent runs every round for
 *    real (task queue with its default concurrency 32 and bound 256, the check, the SQLite outbox,
 *    the sender) for `agent-s` seconds. Lateness = the result's `started_at` − its `scheduled_at`
 *    (ms, as the node reports them), over every round started in the window; also rounds
 *    expected from the schedule vs results received (missed, duplicates), and the agent's CPU
 *    and RSS.
 * 2. The scheduler alone, in this process: the same assignments in an AssignmentScheduler whose
 *    `fire` only notes the time (sub-millisecond clock), for `alone-s` seconds: the timers' own
 *    lateness, without checks or I/O.
 * For both, how far the wall clock moved against the monotonic clock over the phase: lateness is
 * wall-clock time, so a step (a VM paused and resumed) shifts it, and a step of 5 ms or more is
 * printed as a warning.
 * 3. The anchor (test/bench/lib/blackbox.ts): Prometheus blackbox_exporter (Debian package
 *    prometheus-blackbox-exporter, installed by apt-get when missing and run as root; skipped
 *    with a message otherwise; `--blackbox-s 0` skips it) probing the same target for the same
 *    assignments at the same phases for `blackbox-s` seconds through its /probe endpoint
 *    (tcp_connect): probes/s and CPU per probe beside the agent's.
 *
 * Prints a Markdown table (measure | real agent | scheduler alone | difference | goal) and a
 * JSON line with every figure.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { newId, newSecret, parseMonitorConfig, roundPhaseMs, type Assignment } from '@vantage/shared-protocol';
import { AssignmentScheduler } from '../../node-agent/src/assignments/scheduler.js';
import { AssignmentStore } from '../../node-agent/src/assignments/store.js';
import { ControlPlaneStub } from '../../node-agent/src/connection/test-support/control-plane-stub.js';
import { openStateDb } from '../../node-agent/src/state/db.js';
import { saveIdentity } from '../../node-agent/src/state/identity.js';
import { Secret } from '../../node-agent/src/secret.js';
import { readBundleManifest, ensureBundle } from '../../installer/bundle-cache.js';
import { blackboxAnchor } from './lib/blackbox.js';
import { procStats } from './lib/proc-stats.js';
import { Progress } from './lib/progress.js';
import { fmt, quantile } from './lib/stats.js';

const { values } = parseArgs({ options: {
  assignments: { type: 'string', default: '10000' }, 'interval-s': { type: 'string', default: '60' },
  'agent-s': { type: 'string', default: '150' }, 'alone-s': { type: 'string', default: '60' }, 'blackbox-s': { type: 'string', default: '60' },
  timeline: { type: 'boolean', default: false }, 'agent-node-args': { type: 'string', default: '' },
  'from-build': { type: 'boolean', default: false },
} });
const FROM_BUILD = values['from-build'];
const TIMELINE = values.timeline;
const N = Number(values.assignments);
const INTERVAL_S = Number(values['interval-s']);
const AGENT_S = Number(values['agent-s']);
const ALONE_S = Number(values['alone-s']);
/** A wall-clock step (ms) during a phase worth a warning: Date.now() reads are 1 ms apart. */
const WALL_STEP_WARN_MS = 5;
const BLACKBOX_S = Number(values['blackbox-s']);
const BIN = path.resolve('node-agent/bin/node-agent.mjs');
const AGENT_NODE_ARGS = values['agent-node-args'].split(' ').filter(Boolean);
const BUNDLE_DIR = path.resolve('bench/out/agent-bundle');
const log = (msg: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${msg}\n`);

/**
 * The installer's agent bundle, unpacked into `tmp`: built first into BUNDLE_DIR when the sources
 * changed since its last build (installer/bundle-cache.ts), with a progress line.
 * @returns the unpacked bundle's `node-agent.mjs` (absolute path)
 * @throws Error from the build (esbuild, a native package missing) or from tar
 */
async function unpackedBundle(tmp: string): Promise<string> {
  const progress = new Progress();
  progress.start(`agent bundle (installer/build-bundle.ts into ${path.relative(process.cwd(), BUNDLE_DIR)})`);
  const { built } = await ensureBundle(BUNDLE_DIR);
  const manifest = readBundleManifest(BUNDLE_DIR)!;
  progress.done(`${built ? 'built' : 'current, not rebuilt'}: ${manifest.file}`);
  execFileSync('tar', ['-xzf', path.join(BUNDLE_DIR, manifest.file), '-C', tmp]);
  return path.join(tmp, manifest.file.replace(/\.tar\.gz$/, ''), 'node-agent.mjs');
}

/** `n` TCP monitor assignments against `target`, each with the phase the control plane would give it. */
function makeAssignments(n: number, target: string): Assignment[] {
  const parsed = parseMonitorConfig('tcp', { timeout_ms: 2000 });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return Array.from({ length: n }, () => {
    const monitor_id = newId('monitor');
    return {
      monitor_id, interval_s: INTERVAL_S, phase_ms: roundPhaseMs(monitor_id, INTERVAL_S),
      policy: { allow_private: true, allow_cidrs: ['127.0.0.0/8'] },
      check: { type: 'tcp', target, config: parsed.config },
    } as Assignment;
  });
}

/** Round starts of `a` in [from_ms, to_ms). */
function roundsIn(a: Assignment, from_ms: number, to_ms: number): number {
  const step = a.interval_s * 1000;
  const first = a.phase_ms! + Math.ceil((from_ms - a.phase_ms!) / step) * step;
  return first >= to_ms ? 0 : Math.floor((to_ms - 1 - first) / step) + 1;
}

const summary = (xs: number[]) => ({ n: xs.length, p50_ms: quantile(xs, 0.5), p99_ms: quantile(xs, 0.99), max_ms: xs.length ? Math.max(...xs) : Number.NaN });

async function realAgent(tmp: string, target: string, assignments: Assignment[]) {
  // From the build as the installer's service runs it (NODE_ENV=production), else the sources under tsx.
  const entry = FROM_BUILD ? [await unpackedBundle(tmp)] : ['--import', 'tsx', BIN];
  const cp = new ControlPlaneStub({ heartbeat_interval_ms: 4000 });
  await cp.listen();
  const dir = path.join(tmp, 'state');
  const db = openStateDb(dir);
  const credential = newSecret('node_credential');
  const node_id = newId('node');
  cp.credentials.set(credential, node_id);
  saveIdentity(db, { node_id, credential: new Secret(credential), control_plane_url: cp.url });
  new AssignmentStore(db).replaceAll(1, assignments);
  db.close();
  const env = FROM_BUILD ? { ...process.env, NODE_ENV: 'production' } : process.env;
  const child = spawn(process.execPath, [...AGENT_NODE_ARGS, ...entry, 'run', '--state-dir', dir, '--log-level', 'warn', '--allow-private'], { stdio: ['ignore', 'pipe', 'inherit'], env });
  // The agent logs JSON lines on stdout: count the rounds it skipped (queue full, previous run
  // still going) and pass the other lines on.
  let skipped = 0;
  let partial = '';
  child.stdout!.on('data', (d: Buffer) => {
    const lines = (partial + String(d)).split('\n');
    partial = lines.pop()!;
    for (const l of lines) {
      if (l.includes('monitor run skipped')) skipped++;
      else if (l.trim()) process.stderr.write(`${l}\n`);
    }
  });
  try {
    await new Promise((resolve) => cp.once('connection', resolve));
    // The window: from the first round after the agent has loaded its set, for AGENT_S seconds;
    // rounds of its last 10 s may still be reporting, so they are waited for.
    const from_ms = Date.now() + 2000;
    const to_ms = from_ms + AGENT_S * 1000;
    await new Promise((r) => setTimeout(r, 2000));
    const a = procStats(child.pid!);
    let next_log = Date.now() + 30_000;
    while (Date.now() < to_ms) {
      await new Promise((r) => setTimeout(r, 1000));
      if (Date.now() >= next_log) { log(`agent: ${cp.results.size} results so far, ${Math.round((to_ms - Date.now()) / 1000)} s left`); next_log += 30_000; }
    }
    const b = procStats(child.pid!);
    await new Promise((r) => setTimeout(r, 8000)); // the last rounds' results (timeout 2 s) and acks
    const late: number[] = [];
    const seen = new Set<string>();
    const by_s: number[][] = [];
    let duplicates = 0;
    for (const r of cp.results.values()) {
      if (!r.monitor_id || !r.scheduled_at) continue;
      const at = Date.parse(r.scheduled_at);
      if (at < from_ms || at >= to_ms) continue;
      const key = `${r.monitor_id}@${r.scheduled_at}`;
      if (seen.has(key)) duplicates++;
      seen.add(key);
      late.push(Date.parse(r.started_at) - at);
      if (TIMELINE) (by_s[Math.floor((at - from_ms) / 5000)] ??= []).push(Date.parse(r.started_at) - at);
    }
    if (TIMELINE) by_s.forEach((xs, i) => log(`timeline ${i * 5}-${i * 5 + 5} s: ${xs.length} rounds, p99 ${quantile(xs, 0.99)} ms, max ${Math.max(...xs)} ms`));
    const expected = assignments.reduce((s, x) => s + roundsIn(x, from_ms, to_ms), 0);
    const failed = [...cp.results.values()].filter((r) => !r.success).length;
    return {
      ...summary(late), expected, received: seen.size, duplicates, failed, skipped,
      cpu_pct: ((b.cpu_s - a.cpu_s) / ((to_ms - from_ms) / 1000 - 2)) * 100, rss_mb: b.rss_mb,
    };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.on('close', r));
    await cp.kill();
  }
}

/**
 * The wall clock's offset from the monotonic one (ms), read at the instant Date.now() ticks to a
 * new millisecond (to a few µs). It moves only when the wall clock is stepped or slewed, as a VM's
 * is after a pause; `performance.timeOrigin + performance.now()` keeps the offset of the process's
 * start, so a sub-millisecond wall clock is this offset, read at the phase's start, plus
 * performance.now().
 */
function wallOffsetMs(): number {
  const start = Date.now();
  for (;;) {
    const mono = performance.now();
    const wall = Date.now();
    if (wall !== start) return wall - mono;
  }
}

/** Over `phase`, how far (ms) the wall clock moved against the monotonic clock (0 on a steady machine). */
async function wallStepDuring<T>(phase: () => Promise<T>): Promise<{ value: T; wall_step_ms: number }> {
  const before = wallOffsetMs();
  const value = await phase();
  return { value, wall_step_ms: Math.round((wallOffsetMs() - before) * 10) / 10 };
}

async function schedulerAlone(assignments: Assignment[]) {
  const late: number[] = [];
  const offset = wallOffsetMs();
  const now = () => offset + performance.now();
  const scheduler = new AssignmentScheduler({ fire: (_a, scheduled_at) => { late.push(now() - Date.parse(scheduled_at)); } });
  scheduler.sync(assignments);
  await new Promise((r) => setTimeout(r, ALONE_S * 1000));
  scheduler.stop();
  return summary(late);
}

async function main(): Promise<void> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'scheduler-bench-'));
  const target = createServer((s) => s.end());
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  try {
    const assignments = makeAssignments(N, `127.0.0.1:${(target.address() as AddressInfo).port}`);
    log(`real agent (${FROM_BUILD ? 'from the installer bundle, NODE_ENV=production' : 'from the sources under tsx'}): ${N} tcp assignments at ${INTERVAL_S} s for ${AGENT_S} s`);
    const { value: agent, wall_step_ms: agent_wall_step_ms } = await wallStepDuring(() => realAgent(tmp, `127.0.0.1:${(target.address() as AddressInfo).port}`, assignments));
    log(`real agent: ${agent.received}/${agent.expected} rounds, p50 ${agent.p50_ms} p99 ${agent.p99_ms} ms`);
    log(`scheduler alone: ${N} assignments for ${ALONE_S} s`);
    const { value: alone, wall_step_ms: alone_wall_step_ms } = await wallStepDuring(() => schedulerAlone(assignments));
    // Lateness is read off the wall clock (the agent's started_at, the schedule's scheduled_at): a
    // step of that clock during a phase (a VM paused and resumed) shifts that phase's figures.
    const stepped = [['real agent', agent_wall_step_ms], ['scheduler alone', alone_wall_step_ms]].filter(([, ms]) => Math.abs(ms as number) >= WALL_STEP_WARN_MS);
    for (const [phase, ms] of stepped) log(`warning: the wall clock moved ${ms} ms against the monotonic clock during the ${phase} phase; its lateness figures are off by up to that`);
    const target_addr = `127.0.0.1:${(target.address() as AddressInfo).port}`;
    if (BLACKBOX_S > 0) log(`blackbox_exporter: the same ${N} targets at ${INTERVAL_S} s for ${BLACKBOX_S} s`);
    const blackbox = BLACKBOX_S > 0 ? await blackboxAnchor(assignments.map((a) => ({ target: target_addr, phase_ms: a.phase_ms! })), INTERVAL_S, BLACKBOX_S, tmp, log) : null;
    // The agent's probes/s and CPU per probe over its window (every round it ran, with its outbox and sender).
    const agent_probes_per_s = agent.received / AGENT_S;
    const agent_cpu_us_per_probe = ((agent.cpu_pct / 100) * 1e6) / Math.max(agent_probes_per_s, 1e-9);
    const load = os.loadavg().map((x) => x.toFixed(2)).join(' ');
    const row = (measure: string, ours: string, peer: string, diff: string, goal = '') => `| ${measure} | ${ours} | ${peer} | ${diff} | ${goal} |`;
    const ms = (x: number, d = 1) => `${fmt(x, d)} ms`;
    console.log([
      `Scheduler lateness: ${N} assignments at ${INTERVAL_S} s on one node, agent run ${FROM_BUILD ? 'from the installer bundle (NODE_ENV=production)' : 'from the sources under tsx'} (load average ${load}, ${os.cpus().length} cores)`,
      '',
      '| measure | real agent (checks, outbox, sender) | scheduler alone (same run) | difference | goal |',
      '|---|---|---|---|---|',
      row(`round start lateness p50 (${N} assignments, ${agent.n} / ${alone.n} rounds)`, ms(agent.p50_ms), ms(alone.p50_ms, 2), ms(agent.p50_ms - alone.p50_ms, 2)),
      row('round start lateness p99', ms(agent.p99_ms), ms(alone.p99_ms, 2), ms(agent.p99_ms - alone.p99_ms, 2)),
      row('round start lateness max', ms(agent.max_ms), ms(alone.max_ms, 2), ''),
      row(`rounds run / expected from the schedule (duplicates; skipped by the agent: queue full or previous run still going)`, `${agent.received} / ${agent.expected} (${agent.duplicates}; ${agent.skipped} skipped)`, '', ''),
      row('agent CPU while running them / RSS', `${fmt(agent.cpu_pct)} % of a core / ${fmt(agent.rss_mb, 0)} MB`, '', ''),
      row('wall clock moved against the monotonic one during the phase (a step shifts the lateness above)', ms(agent_wall_step_ms), ms(alone_wall_step_ms), ''),
      '',
      `Anchor: the same ${N} TCP probes every ${INTERVAL_S} s by Prometheus blackbox_exporter${blackbox ? ` (${blackbox.version})` : ''} through /probe, same run`,
      '',
      '| measure | real agent (checks, outbox, sender) | blackbox_exporter (probe only) | ratio | goal |',
      '|---|---|---|---|---|',
      ...(blackbox ? [
        row('probes/s (failed)', `${fmt(agent_probes_per_s)} (${agent.failed})`, `${fmt(blackbox.probes_per_s)} (${blackbox.failed})`, ''),
        row('CPU per probe', `${fmt(agent_cpu_us_per_probe, 0)} µs`, `${fmt(blackbox.cpu_us_per_probe, 0)} µs`, `${fmt(agent_cpu_us_per_probe / blackbox.cpu_us_per_probe, 2)}x`),
        row('CPU / RSS', `${fmt(agent.cpu_pct)} % / ${fmt(agent.rss_mb, 0)} MB`, `${fmt(blackbox.cpu_pct)} % / ${fmt(blackbox.rss_mb, 0)} MB`, ''),
      ] : [row('(blackbox_exporter not measured: see the log)', '', '', '')]),
    ].join('\n'));
    console.log(JSON.stringify({ from_build: FROM_BUILD, assignments: N, interval_s: INTERVAL_S, agent_s: AGENT_S, alone_s: ALONE_S, load_average: os.loadavg(), agent, alone, agent_wall_step_ms, alone_wall_step_ms,
      agent_probes_per_s, agent_cpu_us_per_probe, blackbox_s: BLACKBOX_S, blackbox }));
  } finally {
    target.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
