#!/usr/bin/env node
// The whole test suite: the test environment (test/env/provision.sh: Debian packages and a Postgres
// server on 127.0.0.1:5432, installed as root when missing; skip with VANTAGE_TEST_PROVISION=0),
// the web console build (it type-checks the console), the type check over every package, then
// every tap test file.
//
// Every file runs in a Node.js process of its own, started directly (test/run-file.mjs: what
// tap's runner would start, less the runner's coverage hooks). A unit file runs as its transpiled
// copy in the test mirror (test/mirror.mjs: every TypeScript file transpiled once at the start, so
// its process loads plain JavaScript with no loader hook; VANTAGE_TEST_MIRROR=0 runs every file
// through tsx instead), and so does a file of the Node 22 step; a network file runs through tsx,
// as it always has, and so does a file the mirror leaves out. The files run in two streams at
// once: the network stream (the files in NETWORK_FILES: each builds a routed test network with
// installed agents, its own control plane and receivers, and counts rounds and deliveries against
// the clock, so two of them never share the machine) and the unit stream (every other file: each
// makes its own database and, where it needs one, its own network namespaces with a per-run
// prefix, so it can run beside anything). The unit files form one queue that workers take a file
// at a time: beside the network stream there are cores - 1 workers (one on a 2-core machine, so
// two heavy files are never paired with a network file); when the network stream ends, one more
// worker starts, so no core idles for the rest of the run. The type check runs beside them.
// VANTAGE_TEST_STREAMS=1 runs every file in one stream.
//
// Then the Node 22 step (test/node22.mjs: a unit subset again on Node.js 22 LTS, installed from the
// npm registry; VANTAGE_TEST_NODE22=0 skips it): each unit worker takes its files once the unit
// queue is empty, while the others finish their last unit file.
//
// Prints each test file's outcome as it finishes (tagged with its stream), the failures in full,
// and a last line `N passed, N failed` (N counts the test files plus the web console build and the
// type check; assertions are reported beside it). Full TAP output is kept in
// .tap/report-<stream>.tap (one per worker). Extra arguments are passed to tap's runner (file
// filters: `pnpm test control-plane/src/monitors`) and run in one stream.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { createInterface } from 'node:readline';
import { buildMirror } from './mirror.mjs';
import { runQueue } from './run-file.mjs';

/** Test files that build the routed test network (kept to one stream, one at a time). */
const NETWORK_FILES = [
  'test/faults/monitoring-faults.test.ts',
  'test/e2e/monitoring.e2e.test.ts',
  'test/faults/faults.test.ts',
  'test/e2e/api.e2e.test.ts',
  'test/demo.test.ts',
  'test/installer.test.ts',
];

const args = process.argv.slice(2);
const started = Date.now();
const seconds = () => ((Date.now() - started) / 1000).toFixed(0);
let passed = 0;
let failed = 0;

function run(cmd, cmdArgs, onLine) {
  return new Promise((resolve) => {
    const child = spawn(cmd, cmdArgs, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' } });
    const rl = createInterface({ input: child.stdout });
    rl.on('line', onLine);
    child.stderr.on('data', (d) => process.stderr.write(d));
    child.on('close', (code) => { rl.close(); resolve(code ?? 1); });
  });
}

if (process.env.VANTAGE_TEST_PROVISION !== '0') {
  console.log('▶ test environment (test/env/provision.sh)');
  const code = await run('bash', ['test/env/provision.sh'], (line) => console.log(line));
  if (code !== 0) { console.log('not ok - test environment: see above'); console.log('0 passed, 1 failed'); process.exit(1); }
}

/** The type check; its output is held back and printed in one block when it ends. */
async function typeCheck() {
  const lines = [];
  const code = await run('node_modules/.bin/tsc', ['--noEmit', '-p', 'tsconfig.json'], (line) => lines.push(line));
  if (lines.length) console.log(lines.join('\n'));
  if (code === 0) { passed++; console.log(`ok - type check (${seconds()} s)`); }
  else { failed++; console.log('not ok - type check'); }
}

/** Adds tap's assertion summaries (`total: 3, pass: 2, fail: 1`) field by field; null for none. */
function addSummaries(parts) {
  const sum = {};
  for (const part of parts) {
    for (const [, key, n] of part.matchAll(/(\w+): (\d+)/g)) sum[key] = (sum[key] ?? 0) + Number(n);
  }
  return parts.length ? Object.entries(sum).map(([k, n]) => `${k}: ${n}`).join(', ') : null;
}

/**
 * A worker: runs the files of `queue` one at a time (run-file.mjs runQueue) until it is empty, its
 * TAP in .tap/report-<name>.tap; then, in a full run, joins the Node 22 step (node22.mjs node22Run),
 * so a worker whose queue ran dry takes the step's files while the others finish their last file
 * (never before the network stream's files have ended: the network worker, which does not join,
 * marks that with `onQueueDone`).
 * @param opts.mirror run the files from the test mirror (run-file.mjs runTestFile)
 * @returns the assertion summaries of its files (the Node 22 step's are not counted there)
 */
async function worker(name, queue, { onQueueDone = () => undefined, joinNode22 = true, mirror = false } = {}) {
  const report = createWriteStream(`.tap/report-${name}.tap`);
  report.write('TAP version 14\n');
  const counter = { n: 0 };
  const r = await runQueue(queue, { tag: name, seconds, report, counter, mirror });
  passed += r.passed; failed += r.failed;
  report.write(`1..${counter.n}\n`);
  await new Promise((resolve) => report.end(resolve));
  onQueueDone();
  if (node22Run && joinNode22) {
    await networkEnded;
    const step = await (await node22Run).join();
    passed += step.passed; failed += step.failed;
  }
  return r.summaries;
}

/** Every file in one tap process (`pnpm test <filters>`: tap's runner selects the files). */
async function tapStream(tapArgs) {
  const report = createWriteStream('.tap/report-all.tap');
  let summary = null;
  let failureBlock = null;
  let failedHere = 0;
  const code = await run('node_modules/.bin/tap', ['--reporter=tap', '--jobs=1', ...tapArgs], (line) => {
    report.write(line + '\n');
    const top = /^(not ok|ok) \d+ - (.*)$/.exec(line);
    if (top) {
      if (top[1] === 'ok') passed++; else { failed++; failedHere++; }
      if (failureBlock) { console.log(failureBlock.join('\n')); failureBlock = null; }
      console.log(`${line} [all, at ${seconds()} s]`);
      return;
    }
    if (/^\s+not ok /.test(line)) failureBlock = (failureBlock ?? []).concat(line);
    else if (failureBlock && failureBlock.length < 400) failureBlock.push(line);
    const m = /^# \{ (total: .*) \}$/.exec(line);
    if (m) summary = m[1];
  });
  report.end();
  if (code !== 0 && failedHere === 0) { failed++; console.log(`not ok - tap exited with ${code}`); }
  return summary;
}

/** The unit files: every file tap would run (`tap list`, the package.json includes) but the network ones. */
async function unitFiles() {
  const files = [];
  const code = await run('node_modules/.bin/tap', ['list'], (line) => { if (line.trim()) files.push(line.trim()); });
  if (code !== 0) throw new Error(`tap list exited with ${code}`);
  return files.filter((f) => !NETWORK_FILES.includes(f));
}

mkdirSync('.tap', { recursive: true });
// The Node 22 step's binary (an npm install on a fresh machine) and file list are fetched while
// the rest runs; its files run at the end, in the unit workers.
const oneStream = args.length > 0 || process.env.VANTAGE_TEST_STREAMS === '1';
/** Resolved when the network stream's files have ended (the unit workers join the Node 22 step after). */
let endNetwork;
const networkEnded = new Promise((resolve) => { endNetwork = resolve; });
// The test mirror is written beside the console build below; should it fail, every file runs
// through tsx.
console.log('▶ web console build (pnpm --filter @vantage/console build) and the test mirror (test/mirror.mjs)');
const mirrorBuilt = args.length > 0 || process.env.VANTAGE_TEST_MIRROR === '0' ? Promise.resolve(false)
  : buildMirror().then(({ files, ms }) => {
    console.log(`test mirror: ${files} TypeScript files transpiled in ${(ms / 1000).toFixed(1)} s; the unit files run from it`);
    return true;
  }, (err) => {
    console.log(`test mirror not built, every file runs through tsx: ${err.stack ?? err}`);
    return false;
  });
const node22Run = !oneStream && process.env.VANTAGE_TEST_NODE22 !== '0'
  ? import('./node22.mjs').then((m) => m.node22Run(seconds, m.node22Prepare(), mirrorBuilt))
  : null;
// The web console is built before the tests (its browser tests drive the build the control plane
// serves); a failed build is one failure, and the tests still run (the API does not need it).
const consoleLines = [];
const consoleCode = await run('pnpm', ['--filter', '@vantage/console', 'build'], (line) => consoleLines.push(line));
const mirror = await mirrorBuilt;
if (consoleCode === 0) { passed++; console.log(`ok - web console build (${seconds()} s)`); }
else { failed++; console.log(consoleLines.join('\n')); console.log('not ok - web console build'); }
// A test file's `import t from 'tap'` loads the plugin set tap last built; tap's runner rebuilds
// it after a configuration change (package.json "tap": plugins), but the files here start without
// the runner, so it is built here first.
const buildCode = await run('node_modules/.bin/tap', ['build'], (line) => console.log(line));
if (buildCode !== 0) { console.log('not ok - tap build'); console.log('0 passed, 1 failed'); process.exit(1); }
for (const stale of readdirSync('.tap').filter((f) => /^report-.*\.tap$/.test(f))) rmSync(`.tap/${stale}`);
let summaries;
if (args.length > 0) {
  console.log('▶ type check and tap (the files tap selects, one at a time)');
  [, ...summaries] = await Promise.all([typeCheck(), tapStream(args)]);
} else if (oneStream) {
  console.log('▶ type check and tests (one stream)');
  const oneQueue = async () => (await worker('all', await unitFiles(), { mirror })).concat(await worker('network', [...NETWORK_FILES]));
  summaries = [addSummaries((await Promise.all([typeCheck(), oneQueue()]))[1])];
} else {
  const queue = await unitFiles();
  const besideNetwork = Math.max(1, availableParallelism() - 1);
  console.log(`▶ type check and tests: network stream (${NETWORK_FILES.length} files, one at a time) beside `
    + `${besideNetwork} unit worker(s) over ${queue.length} files; one more unit worker when the network stream ends`);
  const workers = Array.from({ length: besideNetwork }, (_, i) => worker(`unit-${i + 1}`, queue, { mirror }));
  const network = worker('network', [...NETWORK_FILES], { onQueueDone: endNetwork, joinNode22: false }).then(async (net) => {
    console.log(`▶ network stream ended (${seconds()} s): unit-${besideNetwork + 1} starts on the freed core`);
    return net.concat(await worker(`unit-${besideNetwork + 1}`, queue, { mirror }));
  });
  const [, ...results] = await Promise.all([typeCheck(), network, ...workers]);
  summaries = [addSummaries(results.flat())];
}
for (const s of summaries) if (s) console.log(`assertions: { ${s} }`);
// The Node 22 step (test/node22.mjs: the unit files that load no native addon, again on Node.js
// 22) ran in the workers as the unit queue emptied, after the network stream, so it never shared
// the machine with it; its files are counted in the same line.
if (node22Run) await (await node22Run).end();
console.log(`(tests took ${seconds()} s)`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
