/**
 * Benchmark (not a test) of `pnpm start` on a warm install: how long from the command to the
 * demo's first probe table, and the peak resident memory (VmHWM, the embedded PGlite included) of
 * the demo's control plane by then, as the demo's own `start-up:` line reports it. Runs the demo
 * `--runs` times one after the other (default 3; each on a free port, stopped with SIGTERM after
 * its first table) and prints one table of medians beside the goals, plus each run. When the
 * demo's cached empty database is missing (first start after an install or a PGlite upgrade), one
 * untimed run makes it first: the figures are for a warm install.
 *
 *   node --import tsx test/bench/startup-bench.ts [--runs 3]
 *
 * Needs what `pnpm start` needs (test/env/check-prerequisites.mjs; pnpm on PATH).
 */
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { isEmbeddedDataDir } from '../../control-plane/src/db/embedded.js';
import { demoDatabaseCache } from '../demo/database.js';
import { ROOT } from '../demo/processes.js';
import { median } from './lib/stats.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' } } });
const runs = Number(values.runs);
if (!(Number.isInteger(runs) && runs >= 1)) throw new Error(`--runs needs a whole number of at least 1, got ${values.runs}`);
const log = (s: string) => process.stderr.write(`${s}\n`);

/** Goals (README's command 1 on a warm install). */
const GOAL_FIRST_TABLE_S = 20;
const GOAL_PEAK_MIB = 400;

/** One run of the demo: the start-up line's figures, and seconds from spawn to its first table. */
interface Run { first_table_s: number; control_plane_s: number; nodes_online_s: number; peak_mib: number; line: string }

/** Start `pnpm start --port 0`, wait for its `start-up:` line (at most 300 s), stop it, read the figures. */
async function runOnce(): Promise<Run> {
  const { NODE_OPTIONS: _dropped, ...env } = process.env;
  const t0 = performance.now();
  const child = spawn('pnpm', ['start', '--port', '0'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  const line = await new Promise<{ text: string; at_s: number }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start-up line within 300 s; output:\n${out.slice(-2000)}`)), 300_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /^start-up: .*$/m.exec(out);
      if (m) { clearTimeout(timer); resolve({ text: m[0], at_s: (performance.now() - t0) / 1000 }); }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`pnpm start exited (${code}) before its first table:\n${out.slice(-2000)}`)); });
  }).finally(async () => {
    // The whole group (pnpm, tsx, the demo, its control plane and nodes): pnpm does not pass
    // SIGTERM on, the demo and its children stop on it; SIGKILL for what lingers after 20 s.
    const group = (signal: NodeJS.Signals | 0) => { try { process.kill(-child.pid!, signal); return true; } catch { return false; } };
    group('SIGTERM');
    const until = Date.now() + 20_000;
    while (group(0) && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
    group('SIGKILL');
  });
  const num = (re: RegExp) => {
    const m = re.exec(line.text);
    if (!m) throw new Error(`start-up line not understood: ${line.text}`);
    return Number(m[1]);
  };
  return {
    first_table_s: line.at_s, line: line.text,
    control_plane_s: num(/control plane ([\d.]+) s/), nodes_online_s: num(/nodes online ([\d.]+) s/), peak_mib: num(/control plane peak memory (\d+) MiB/),
  };
}

if (!isEmbeddedDataDir(demoDatabaseCache())) {
  log('no cached empty database yet: one untimed run makes it');
  await runOnce();
}
const done: Run[] = [];
for (let i = 0; i < runs; i++) {
  log(`run ${i + 1}/${runs}…`);
  const r = await runOnce();
  log(`  ${r.first_table_s.toFixed(1)} s to the first table; ${r.line}`);
  done.push(r);
}
const med = (f: (r: Run) => number) => median(done.map(f));
const first = med((r) => r.first_table_s);
const peak = med((r) => r.peak_mib);
console.log(`\n## pnpm start on a warm install (median of ${runs} runs)\n`);
console.log('| measure | ours | demo process | difference | goal |');
console.log('|---|---|---|---|---|');
console.log(`| \`pnpm start\` to the first probe table | ${first.toFixed(1)} s | control plane answering ${med((r) => r.control_plane_s).toFixed(1)} s, nodes online ${med((r) => r.nodes_online_s).toFixed(1)} s (from the demo's start) | ${first <= GOAL_FIRST_TABLE_S ? 'within' : 'over'} the goal by ${Math.abs(GOAL_FIRST_TABLE_S - first).toFixed(1)} s | ≤ ${GOAL_FIRST_TABLE_S} s |`);
console.log(`| control plane peak RSS by then (VmHWM, embedded PGlite included) | ${peak} MiB | | ${peak <= GOAL_PEAK_MIB ? 'within' : 'over'} the goal by ${Math.abs(GOAL_PEAK_MIB - peak)} MiB | < ${GOAL_PEAK_MIB} MiB |`);
console.log('\nEach run:\n');
for (const [i, r] of done.entries()) console.log(`- run ${i + 1}: ${r.first_table_s.toFixed(1)} s to the first table; ${r.line}`);
