/**
 * Benchmark (not a test): how much of a promise's result outlives V8's young-generation
 * collections (scavenges), by what else the promise carries. No database and no I/O: each shape
 * runs in a child Node.js process started with --trace-gc-nvp (one trace line per collection).
 *
 *   npx tsx test/bench/promise-retention-bench.ts [--rounds 8000]
 *
 * Every shape runs the same loop `rounds` times: make a promise, resolve it on the next
 * setImmediate with 100 small row objects (an object, a Date and a string each: the shape of a
 * database driver's result), await it. The shapes differ only in what the promise carries:
 * - `bare`: nothing;
 * - `settle_function`: its own resolve function stored on it as a property (`p.settle = resolve`);
 * - `arrow_function`: an arrow function made for it stored on it (`p.resolve = (x) => resolve(x)`),
 *   the shape of `postgres` 3.4.9's Query before control-plane/patches/postgres@3.4.9.patch;
 * - `object_with_arrow`: a plain object with an arrow function stored on it after creation and
 *   the rows stored on the object (the promise resolves with null).
 * Prints JSON per shape: scavenges over the loop, median and p99 pause (ms), mean bytes
 * promoted per scavenge (kB: the young generation's survivors moved to the old one; a scavenge
 * right after a full collection promotes nothing, so the mean, not the median) and the loop's wall time (ms per round).
 *
 * Why: the control plane's read routes paused 3-7 ms per scavenge while a bare process paused
 * well under one; the cause was the third shape in the driver (docs/benchmarks.md "Monitor list,
 * uptime and stats latency", eleventh round). This keeps the V8 behaviour measurable on every
 * Node.js the project supports.
 */
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { mean, median, quantile } from './lib/stats.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '8000' } } });
const ROUNDS = Number(values.rounds);

const SHAPES = ['bare', 'settle_function', 'arrow_function', 'object_with_arrow'] as const;

/** The child's program for `shape`: 300 warm-up rounds, then ROUNDS rounds between START and END. */
const program = (shape: string) => `
const shape = ${JSON.stringify(shape)};
const rows = () => { const r = []; for (let i = 0; i < 100; i++) r.push({ id: i, at: new Date(), name: 'row ' + i }); return r; };
const round = () => {
  let resolve;
  const p = new Promise((r) => { resolve = r; });
  if (shape === 'object_with_arrow') {
    const o = {};
    o.done = () => 1;
    setImmediate(() => { o.rows = rows(); resolve(null); });
    return p;
  }
  if (shape === 'settle_function') p.settle = resolve;
  if (shape === 'arrow_function') p.resolve = (x) => resolve(x);
  setImmediate(() => resolve(rows()));
  return p;
};
for (let i = 0; i < 300; i++) await round();
console.log('START');
const t0 = performance.now();
for (let i = 0; i < ${ROUNDS}; i++) await round();
console.log('END ' + ((performance.now() - t0) / ${ROUNDS}));
`;

const round = (x: number) => Math.round(x * 10) / 10;

/** Run one shape; @returns its figures from the child's trace lines between START and END. */
async function run(shape: string) {
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ['--trace-gc-nvp', '--input-type=module', '-e', program(shape)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.stdout.on('data', (x: Buffer) => { text += x.toString(); });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`${shape}: child exited ${code}`))));
  });
  const end = out.indexOf('END ');
  const lines = out.slice(out.indexOf('START'), end).split('\n').filter((l) => / gc=s /.test(l));
  const field = (l: string, k: string) => Number(new RegExp(` ${k}=([0-9.]+)`).exec(l)?.[1] ?? NaN);
  const pauses = lines.map((l) => field(l, 'pause'));
  const promoted = lines.map((l) => field(l, 'promoted') / 1024);
  return {
    scavenges: lines.length, pause_p50_ms: round(median(pauses)), pause_p99_ms: round(quantile(pauses, 0.99)),
    promoted_mean_kb: Math.round(mean(promoted)), ms_per_round: Number(Number(out.slice(end + 4).trim().split('\n')[0]).toFixed(4)),
  };
}

const figures: Record<string, unknown> = { node: process.version, rounds: ROUNDS };
for (const shape of SHAPES) figures[shape] = await run(shape);
console.log(JSON.stringify(figures, null, 2));
