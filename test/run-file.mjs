// One test file in a Node.js process of its own, started directly (`node --import=tsx <file>`)
// rather than through tap's runner: the file is a tap test all the same (`import t from 'tap'`
// prints TAP to stdout and exits non-zero when an assertion fails), but the process loads no
// more than the file does. The runner adds to every test process a loader hook of its
// own (@tapjs/processinfo: for coverage, which this project turns off, it reads every module the
// process loads again and measures its lines) and a second one when the mock plugin is on, and
// passes them on to every Node.js process a test starts; a file importing the app loads ~1,330
// modules through them. test/run-suite.mjs and test/node22.mjs run their files with this.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { mirrorOf } from './mirror.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TAP_CONFIG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).tap ?? {};

/** Node.js arguments of a test process: package.json `tap.node-arg` (the TypeScript hook, tsx). */
export const TEST_NODE_ARGS = TAP_CONFIG['node-arg'] ?? [];

/**
 * A test file's own timeout, in seconds (package.json `tap.timeout`): handed to the file as
 * TAP_TIMEOUT, tap's root timeout, which a file lengthens with `t.setTimeout`. A file that fails it
 * reports the timeout itself and exits.
 */
export const TEST_TIMEOUT_S = Number(TAP_CONFIG.timeout ?? 30);

/** A process still running this long is stopped (SIGTERM, then SIGKILL 10 s later) and failed. */
const HARD_LIMIT_MS = 40 * 60_000;

/** Failure lines kept per file for the console (the report keeps everything). */
const FAILURE_LINES = 400;

/**
 * Run test file `file` (repository-relative) to its end: it passes when it exits with 0 after
 * printing its plan (`1..N`, as tap prints when every test has ended), as tap's runner requires. Its TAP goes to `report` in one write when
 * it ends (files running at once never interleave), as a subtest (`# Subtest: <file>`, the file's
 * lines indented four spaces) followed by the file's own result line,
 * `ok N - <file> # time=<ms>ms` (N: `number`); its stderr goes to this process's stderr.
 * @param opts.node the Node.js binary (default: this one)
 * @param opts.env the environment (default: this process's, with FORCE_COLOR=0 and TAP_TIMEOUT)
 * @param opts.mirror run the file's transpiled copy (test/mirror.mjs, built by the caller) with no
 *   loader hook, where it has one; else (and by default) the file itself through tsx
 * @returns `{ ok, line, failures, summary }`: `line` is the result line; `failures` the lines of
 *   failing assertions (from each `not ok` to the next `ok`, capped) or, for a file that failed
 *   without one (a crash, a signal), its last lines; `summary` the assertion counts tap printed
 *   (`total: 39, pass: 39`) or null
 */
export function runTestFile(file, { number, report, node = process.execPath, env = process.env, mirror = false }) {
  const started = Date.now();
  const mirrored = mirror ? mirrorOf(file) : null;
  const child = spawn(node, mirrored ? ['--enable-source-maps', mirrored] : [...TEST_NODE_ARGS, file], {
    cwd: ROOT,
    env: { ...env, FORCE_COLOR: '0', TAP_TIMEOUT: String(TEST_TIMEOUT_S) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr.on('data', (d) => process.stderr.write(d));
  const lines = [`# Subtest: ${file}`];
  const failures = [];
  const tail = [];
  let inFailure = false;
  let summary = null;
  let planned = false;
  const rl = createInterface({ input: child.stdout });
  rl.on('line', (line) => {
    lines.push(`    ${line}`);
    tail.push(line);
    if (tail.length > 40) tail.shift();
    const m = /^# \{ (total: .*) \}$/.exec(line);
    if (m) summary = m[1];
    if (/^1\.\.\d+/.test(line)) planned = true;
    if (/^\s*not ok /.test(line)) inFailure = true;
    else if (/^\s*ok /.test(line)) inFailure = false;
    if (inFailure && failures.length < FAILURE_LINES) failures.push(line);
  });
  let stopped = null;
  const limit = setTimeout(() => {
    stopped = `still running after ${HARD_LIMIT_MS / 60_000} min: stopped`;
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  }, HARD_LIMIT_MS);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(limit);
      rl.close();
      const ok = code === 0 && planned && !stopped;
      const ms = Date.now() - started;
      const why = ok ? '' : ` # ${stopped ?? (signal ? `killed by ${signal}` : code !== 0 ? `exit code ${code}` : 'ended without its plan (1..N)')}`;
      const line = `${ok ? 'ok' : 'not ok'} ${number} - ${file} # time=${ms}ms${why}`;
      lines.push(line, '');
      report.write(`${lines.join('\n')}\n`);
      if (!ok && failures.length === 0) failures.push(...tail.map((l) => `    ${l}`));
      resolve({ ok, line, failures, summary });
    });
  });
}

/**
 * Run the files of `queue` one after another, each taken from the queue's front when the one
 * before it ends, so several calls sharing one queue keep a file per call running until it is
 * empty. Prints each file's outcome as `ok N - file # time=..ms [tag, at S s]`, the failing
 * assertions in full before it; the TAP of each goes to `report` (runTestFile).
 * @param queue repository-relative test files (consumed)
 * @param opts.tag the name shown with each result; opts.seconds () => seconds since the suite began
 * @param opts.counter `{ n }`, the last result number written to `report` (shared by the calls
 *   that write to one report)
 * @param opts.node, opts.env, opts.mirror as runTestFile
 * @returns `{ passed, failed, summaries }`: files passed and failed, and tap's assertion summaries
 */
export async function runQueue(queue, { tag, seconds, report, counter, node, env, mirror }) {
  let passed = 0;
  let failed = 0;
  const summaries = [];
  while (queue.length) {
    const r = await runTestFile(queue.shift(), { number: ++counter.n, report, node, env, mirror });
    if (r.ok) passed++; else failed++;
    if (r.failures.length) console.log(r.failures.join('\n'));
    console.log(`${r.line} [${tag}, at ${seconds()} s]`);
    if (r.summary) summaries.push(r.summary);
  }
  return { passed, failed, summaries };
}
