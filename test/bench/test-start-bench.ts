/**
 * Benchmark (not a test): what a test file costs to start three ways, on the same files, in
 * alternated rounds (`--pairs` times: runner, direct, mirror):
 * - `runner`: tap's runner (`tap --jobs=1 <files>`);
 * - `direct`: started directly through tsx (test/run-file.mjs: `node --import=tsx <file>`);
 * - `mirror`: started directly from the test mirror, as `pnpm test` starts a unit file
 *   (test/mirror.mjs: the file transpiled once, run with no loader hook). The mirror is built
 *   once before the first round; its build time is printed apart.
 *
 *   npx tsx test/bench/test-start-bench.ts [--pairs 3] [file ...]
 *
 * Default files: eight unit files (six that load the app and a database, two that load neither).
 * Every way runs the files one after another. Prints JSON: per way the wall time of each run (s)
 * and its CPU (user + system of every process it started, from /proc/self/stat's children
 * times), their medians, and the ratios direct / runner and mirror / direct; the load average
 * before and after. A file that fails in any way stops the benchmark (all must pass the same).
 */
import { spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
// @ts-expect-error: a plain ES module of the test suite, without declarations
import { buildMirror } from '../mirror.mjs';
// @ts-expect-error: a plain ES module of the test suite, without declarations
import { runTestFile } from '../run-file.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const { values, positionals } = parseArgs({ options: { pairs: { type: 'string', default: '3' } }, allowPositionals: true });
const FILES = positionals.length > 0 ? positionals : [
  'control-plane/src/accounts/key-scopes.routes.test.ts',
  'control-plane/src/accounts/password-login.test.ts',
  'control-plane/src/accounts/admin.db.test.ts',
  'control-plane/src/launcher.test.ts',
  'shared-protocol/src/parse.test.ts',
  'control-plane/src/accounts/api-keys.routes.test.ts',
  'control-plane/src/monitors/monitor-list.routes.test.ts',
  'control-plane/src/nodes/geo/geo.test.ts',
];

/** CPU seconds (user + system) of this process's waited-for children so far (proc(5): cutime, cstime). */
function childrenCpuS(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields after the command: state is field 3, so cutime (16) and cstime (17) are at 13 and 14.
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

/** The files through tap's runner, one at a time, in one tap process. */
function viaRunner(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(ROOT, 'node_modules/.bin/tap'), ['--reporter=silent', '--jobs=1', ...FILES], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`tap exited with ${code}`))));
  });
}

/** The files started directly, one at a time, through tsx or (`mirror`) from the test mirror. */
async function direct(mirror: boolean): Promise<void> {
  const report = createWriteStream('/dev/null');
  let n = 0;
  for (const file of FILES) {
    const r = await runTestFile(file, { number: ++n, report, mirror });
    if (!r.ok) throw new Error(`${r.line}\n${r.failures.join('\n')}`);
  }
  report.end();
}

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2; };
const round = (x: number) => Math.round(x * 100) / 100;

const mirror_build = (await buildMirror()) as { files: number; ms: number };
const load_before = loadavg().map(round);
type Way = { wall_s: number[]; cpu_s: number[] };
const ways: Record<'runner' | 'direct' | 'mirror', Way> = { runner: { wall_s: [], cpu_s: [] }, direct: { wall_s: [], cpu_s: [] }, mirror: { wall_s: [], cpu_s: [] } };
const runs = [['runner', viaRunner], ['direct', () => direct(false)], ['mirror', () => direct(true)]] as const;
for (let i = 0; i < Number(values.pairs); i++) {
  for (const [name, fn] of runs) {
    const cpu0 = childrenCpuS();
    const t0 = performance.now();
    await fn();
    ways[name].wall_s.push(round((performance.now() - t0) / 1000));
    ways[name].cpu_s.push(round(childrenCpuS() - cpu0));
    process.stderr.write(`round ${i + 1}: ${name} ${ways[name].wall_s.at(-1)} s wall, ${ways[name].cpu_s.at(-1)} s CPU\n`);
  }
}
const summary = (w: Way) => ({ ...w, wall_median_s: round(median(w.wall_s)), cpu_median_s: round(median(w.cpu_s)) });
const [runner, directly, mirrored] = [summary(ways.runner), summary(ways.direct), summary(ways.mirror)];
console.log(JSON.stringify({
  files: FILES.length, rounds: Number(values.pairs), mirror_build: { files: mirror_build.files, s: round(mirror_build.ms / 1000) },
  runner, direct: directly, mirror: mirrored,
  direct_vs_runner: { wall: round(directly.wall_median_s / runner.wall_median_s), cpu: round(directly.cpu_median_s / runner.cpu_median_s) },
  mirror_vs_direct: { wall: round(mirrored.wall_median_s / directly.wall_median_s), cpu: round(mirrored.cpu_median_s / directly.cpu_median_s) },
  load_before, load_after: loadavg().map(round),
}, null, 1));
