/*
 * Every benchmark in one command:
 *
 *   pnpm bench            (= npx tsx test/bench/run-all.ts)
 *   pnpm bench --quick    smaller sizes, ~1.5 min: checks that every script still runs
 *   pnpm bench --only hub,e2e   only the benchmarks whose name contains one of these words
 *
 * Runs each script of test/bench/ as a child process, one after the other (they pin cores and
 * must not compete), with a progress line on stderr, and writes bench/out/bench.md (git-ignored;
 * also printed): the machine (nproc, CPU, memory, kernel, Node.js, load average at start and
 * end), then one summary table of every figure (area | figure | ours | peer (same run) | goal |
 * ratio/difference), then per area how each script was run. Areas: the probe engine, the node
 * hub, the node agent (outbox, and HTTP probe timing inside running agents), the HTTP API, end to end, and monitoring (scheduler lateness with 10,000
 * assignments, check ingest and bytes per stored check, monitor list and uptime latency with
 * 100,000 monitors, target down to notification received: alert-bench.ts when present), and
 * start-up (`pnpm start` to the demo's first table, its control plane's peak memory).
 * Peers (iputils ping, curl, dig) are measured by the scripts themselves, interleaved with ours.
 * A script that fails or times out is reported in its table with the tail of its stderr; the
 * others still run; the exit code is then 1. Full output of each: bench/out/logs/<name>.log.
 * Needs root, iproute2, taskset, curl, dig, iputils ping and the Postgres at TEST_DATABASE_URL.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { describeMachine, machineMarkdown } from './lib/machine.js';
import type { Figure } from './lib/markdown.js';
import { existsSync } from 'node:fs';
import { parseAlert, parseAny, parseChecks, parseMonitors } from './lib/monitoring-parsers.js';
import { parseAgent, parseApi, parseDashboard, parseLiveness, parseProbeTables, parseStatusPage, type Parsed } from './lib/parsers.js';
import { Progress } from './lib/progress.js';
import { runScript, type ScriptRun } from './lib/run-script.js';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const REPO = join(BENCH_DIR, '..', '..');
const OUT_DIR = join(REPO, 'bench', 'out');
const TSX = import.meta.resolve('tsx');

/** One benchmark script: where its figures go, how to run it (full and quick sizes), how to read it. */
interface Bench {
  name: string;
  area: string;
  file: string;
  node_flags?: string[];
  args: string[];
  quick_args: string[];
  timeout_s: number;
  parse: (stdout: string) => Parsed;
}

const QUICK_PROBE: Record<string, string[]> = {
  'probe-bench-http-tcp': ['--n', '15', '--seconds', '1'],
  'probe-bench-ping': ['--count', '40', '--seconds', '1'],
  'probe-bench-dns': ['--n', '20', '--seconds', '1'],
  'probe-bench-speedtest': ['--mb', '20', '--n', '3'],
  'probe-bench-mtr': ['--n', '1', '--cycles', '5'],
  'probe-bench-ntp': ['--n', '2'],
  'probe-bench-timing': ['--n', '10', '--busy-n', '10', '--warmup', '1'],
};

const MONITORING = 'Monitoring';

/**
 * The monitoring benchmarks: scheduler lateness on one node, the check history (ingest, bytes,
 * uptime/stats queries), packed check blocks alone, monitors at 100,000 (list, uptime, placement), and target down →
 * notification received (alert-bench.ts, run when the file is there).
 */
function monitoringBenches(): Bench[] {
  const list: Bench[] = [
    { name: 'scheduler-bench', area: MONITORING, file: 'scheduler-bench.ts', args: [], quick_args: ['--assignments', '2000', '--agent-s', '30', '--alone-s', '15'], timeout_s: 600, parse: parseProbeTables },
    { name: 'checks-bench', area: MONITORING, file: 'checks-bench.ts', args: [], quick_args: ['--monitors', '1000', '--nodes', '20', '--rounds', '3', '--steady-s', '10', '--history-days', '30', '--others', '20', '--warmup-calls', '200', '--warmup-s', '5'], timeout_s: 1800, parse: parseChecks },
    { name: 'pack-codec-bench', area: MONITORING, file: 'pack-codec-bench.ts', args: [], quick_args: ['--blocks', '50', '--repeats', '3'], timeout_s: 300, parse: parseAny },
    { name: 'output-codec-bench', area: MONITORING, file: 'output-codec-bench.ts', args: [], quick_args: ['--outputs', '500', '--repeats', '3'], timeout_s: 300, parse: parseAny },
    // 100,000 monitors: the last 5,000 created through the API (timed), the others inserted and
    // placed by the placement job (monitor-bench.ts header).
    { name: 'monitor-bench', area: MONITORING, file: 'monitor-bench.ts', args: ['--monitors', '100000', '--api-creates', '5000'], quick_args: ['--monitors', '5000', '--nodes', '200', '--api-creates', '500', '--warmup-calls', '200', '--warmup-s', '5'], timeout_s: 1800, parse: parseMonitors },
  ];
  if (existsSync(join(BENCH_DIR, 'alert-bench.ts'))) {
    list.push({ name: 'alert-bench', area: MONITORING, file: 'alert-bench.ts', args: [], quick_args: ['--trials', '5', '--storm', '100'], timeout_s: 1200, parse: parseAlert });
  }
  return list;
}

/** The benchmarks, in run order: every probe-bench-*.ts found, then hub, agent, API, end to end, monitoring. */
async function benches(): Promise<Bench[]> {
  const probe = (await readdir(BENCH_DIR)).filter((f) => /^probe-bench-.+\.ts$/.test(f)).sort();
  return [
    ...probe.map((file): Bench => {
      const name = file.replace(/\.ts$/, '');
      return { name, area: 'Probe engine (one node, one core)', file, args: [], quick_args: QUICK_PROBE[name] ?? [], timeout_s: 300, parse: parseProbeTables };
    }),
    // The hub at scale: each figure of the probe-throughput table beside its goal, at 1,000 and
    // 10,000 simulated nodes, and with two instances on one database (hub-bench.ts header).
    ...([
      ['hub-bench-1k', ['--nodes', '1000'], ['--nodes', '300']],
      ['hub-bench-10k', ['--nodes', '10000'], ['--nodes', '600']],
      ['hub-bench-10k-2i', ['--nodes', '10000', '--instances', '2'], ['--nodes', '600', '--instances', '2']],
    ] as const).map(([name, args, quick]): Bench => ({
      name, area: 'Node hub', file: 'hub-bench.ts', args: [...args], timeout_s: 1200, parse: parseProbeTables,
      quick_args: [...quick, '--rates', '5,40', '--step-s', '2', '--fanouts', '3', '--idle-s', '2'],
    })),
    // Node liveness: connection storm, idle cost, close wave and restarts with real agent connections.
    ...([
      ['hub-liveness-1k', ['--nodes', '1000', '--idle-s', '20']],
      ['hub-liveness-10k', ['--nodes', '10000', '--idle-s', '20']],
    ] as const).map(([name, args]): Bench => ({
      name, area: 'Node hub', file: 'hub-liveness-bench.ts', args: [...args], timeout_s: 900, parse: parseLiveness,
      quick_args: ['--nodes', '300', '--idle-s', '2', '--restart-gap-ms', '1000'],
    })),
    { name: 'agent-bench', area: 'Node agent', file: 'agent-bench.ts', args: [], quick_args: ['--results', '5000', '--idle-s', '2'], timeout_s: 300, parse: parseAgent },
    // HTTP probe timing inside running bundled agents vs curl beside them, on a routed namespace
    // network (agent-http-timing-bench.ts header).
    { name: 'agent-http-timing-bench', area: 'Node agent', file: 'agent-http-timing-bench.ts', args: [], quick_args: ['--n', '10', '--warmup', '1'], timeout_s: 900, parse: parseProbeTables },
    { name: 'api-bench', area: 'HTTP API', file: 'api-bench.ts', args: [], quick_args: ['--duration', '2'], timeout_s: 120, parse: parseApi },
    // Offline lookups (IP info, IP reputation): lookups/s and p50/p99 at 1,000/s (lookups-bench.ts header).
    { name: 'lookups-bench', area: 'HTTP API', file: 'lookups-bench.ts', args: [], quick_args: ['--duration', '2'], timeout_s: 180, parse: parseProbeTables },
    // MCP tool calls (list_nodes) through SDK clients vs the same lookup on /v1 (mcp-bench.ts header).
    { name: 'mcp-bench', area: 'HTTP API', file: 'mcp-bench.ts', args: [], quick_args: ['--duration', '1', '--rounds', '1'], timeout_s: 180, parse: parseProbeTables },
    // Public status page views from the page cache vs built per view (status-page-bench.ts header).
    { name: 'status-page-bench', area: 'HTTP API', file: 'status-page-bench.ts', args: [], quick_args: ['--duration', '1', '--rounds', '1'], timeout_s: 300, parse: parseStatusPage },
    // Agent-obs event stream: memory and fan-out latency with 1,000 SSE clients (agent-obs-stream-bench.ts header).
    { name: 'agent-obs-stream-bench', area: 'HTTP API', file: 'agent-obs-stream-bench.ts', args: [], quick_args: ['--clients', '100', '--events', '3'], timeout_s: 300, parse: parseProbeTables },
    // A dashboard's widget data over 90 days for 1,000 monitors (dashboard-bench.ts header).
    { name: 'dashboard-bench', area: 'HTTP API', file: 'dashboard-bench.ts', args: [], quick_args: ['--monitors', '200', '--n', '5'], timeout_s: 300, parse: parseDashboard },
    { name: 'e2e-bench', area: 'End to end (namespace test network)', file: 'e2e-bench.ts', args: [], quick_args: ['--n', '10', '--sse', '3'], timeout_s: 150, parse: parseProbeTables },
    ...monitoringBenches(),
    // `pnpm start` to the demo's first table, and its control plane's peak memory (startup-bench.ts header).
    { name: 'startup-bench', area: 'Start-up (pnpm start)', file: 'startup-bench.ts', args: [], quick_args: ['--runs', '1'], timeout_s: 1500, parse: parseProbeTables },
  ];
}

/** The outcome of one benchmark: its figures, or why there are none. */
interface Outcome { bench: Bench; args: string[]; run: ScriptRun; parsed: Parsed | null; error: string | null }

function failureText(o: Outcome): string {
  if (o.run.timed_out) return `timed out after ${o.bench.timeout_s} s`;
  if (o.run.code !== 0) return `exit code ${o.run.code ?? o.run.signal}`;
  return `output not understood: ${o.error}`;
}

/** One area's figures: every script's, a failed script as a row saying why. */
function areaFigures(outcomes: Outcome[]): Figure[] {
  return outcomes.flatMap((o) => o.parsed ? o.parsed.figures : [{ figure: `**${o.bench.name} failed**: ${failureText(o)}`, ours: '—', peer: '', goal: '', difference: '' }]);
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The one summary table: every figure of every area, the area in the first column (named once). */
function summaryTable(areas: string[], outcomes: Outcome[]): string {
  const lines = ['| area | figure | ours | peer (same run) | goal | ratio/difference |', '|---|---|---|---|---|---|'];
  for (const area of areas) {
    areaFigures(outcomes.filter((o) => o.bench.area === area)).forEach((f, i) => {
      lines.push(`| ${[i === 0 ? `**${area}**` : '', f.figure, f.ours, f.peer, f.goal, f.difference].map(cell).join(' | ')} |`);
    });
  }
  return lines.join('\n');
}

/** How each script of one area ran: its command and time, its note, or its failure with the tail of its stderr. */
function areaNotes(area: string, outcomes: Outcome[]): string {
  const notes: string[] = [];
  for (const o of outcomes) {
    const cmd = `\`node ${[...(o.bench.node_flags ?? []), '--import', 'tsx', `test/bench/${o.bench.file}`, ...o.args].join(' ')}\``;
    if (o.parsed) notes.push(`- ${o.bench.name}: ${cmd}, ${o.run.seconds.toFixed(1)} s${o.parsed.note ? `; ${o.parsed.note}` : ''}.`);
    else notes.push(`- ${o.bench.name}: ${cmd} **failed** (${failureText(o)}) after ${o.run.seconds.toFixed(1)} s; log bench/out/logs/${o.bench.name}.log:\n\n\`\`\`\n${o.run.stderr_tail || '(no stderr)'}\n\`\`\``);
  }
  return [`### ${area}`, '', ...notes, ''].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false }, only: { type: 'string' } } });
  const only = values.only?.split(',').map((s) => s.trim()).filter(Boolean);
  const list = (await benches()).filter((b) => !only || only.some((w) => b.name.includes(w)));
  await mkdir(join(OUT_DIR, 'logs'), { recursive: true });
  const machine = await describeMachine();
  const started = new Date();
  const t0 = performance.now();
  const progress = new Progress();
  const outcomes: Outcome[] = [];
  for (const [i, bench] of list.entries()) {
    const args = values.quick ? bench.quick_args : bench.args;
    progress.start(`[${i + 1}/${list.length}] ${bench.name}`);
    const run = await runScript([process.execPath, ...(bench.node_flags ?? []), '--import', TSX, join(BENCH_DIR, bench.file), ...args], {
      cwd: REPO, log_file: join(OUT_DIR, 'logs', `${bench.name}.log`), timeout_s: bench.timeout_s,
    });
    let parsed: Parsed | null = null;
    let error: string | null = null;
    if (run.code === 0) {
      try { parsed = bench.parse(run.stdout); } catch (err) { error = (err as Error).message; }
    }
    const outcome: Outcome = { bench, args, run, parsed, error };
    outcomes.push(outcome);
    progress.done(parsed ? `ok, ${run.seconds.toFixed(1)} s` : `FAILED (${failureText(outcome)}), ${run.seconds.toFixed(1)} s`);
  }
  const end_load = (await describeMachine()).load_average;
  const areas = [...new Set(outcomes.map((o) => o.bench.area))];
  const failed = outcomes.filter((o) => !o.parsed).length;
  const md = [
    '# Vantage benchmarks',
    '',
    `Run at ${started.toISOString()} by \`pnpm bench${values.quick ? ' --quick' : ''}${only ? ` --only ${only.join(',')}` : ''}\` in ${((performance.now() - t0) / 1000).toFixed(0)} s;`
      + ` ${outcomes.length - failed} of ${outcomes.length} benchmarks ran. Figures are from this run only; peers were measured in the same run.`,
    '',
    machineMarkdown(machine, end_load),
    '',
    '## Summary',
    '',
    summaryTable(areas, outcomes),
    '',
    '## How each figure was measured',
    '',
    ...areas.map((area) => areaNotes(area, outcomes.filter((o) => o.bench.area === area))),
  ].join('\n');
  await writeFile(join(OUT_DIR, 'bench.md'), md);
  process.stdout.write(`\n${md}\n`);
  process.stderr.write(`wrote bench/out/bench.md${failed ? ` (${failed} failed)` : ''}\n`);
  process.exitCode = failed ? 1 : 0;
}

await main();
