/**
 * Benchmark (not a test): the pause of this process's young-generation collections (V8's
 * scavenges) before and after the control plane's code is loaded, with the same work running.
 *
 *   npx tsx test/bench/gc-pause-bench.ts [--queries 30000] [--rows 100]
 *
 * One process, the same loop four times: `queries` statements one after the other on the
 * Postgres at TEST_DATABASE_URL (a scratch database). Three loops of `SELECT 1`: first with only
 * the test database's helper loaded, then after importing control-plane/src/app.ts (the whole
 * route graph and its libraries; nothing of it runs), then after one password strength check
 * (what a control plane holds once anyone has registered or changed a password); the fourth loop
 * reads `rows` rows (a number, a timestamp and a text each) per statement, the shape of a read
 * route's result. Prints JSON: per phase the heap in use, the old generation's size (old space,
 * large objects and code), the scavenges over the loop (count, median and p99 pause in ms, from
 * perf_hooks' `gc` entries of kind minor) and the statements per second.
 *
 * Why: read routes' p99 latencies include the scavenges that fall in a request. In the tenth
 * round (docs/benchmarks.md "Monitor list, uptime and stats latency") the control plane's
 * scavenges paused 3-7 ms against well under one in a bare process; the eleventh found the
 * driver keeping every result alive through them (control-plane/patches/postgres@3.4.9.patch),
 * which the fourth loop shows. This script keeps those figures measurable as the code and Node.js
 * change.
 */
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import { parseArgs } from 'node:util';
import { testDatabase } from '../../control-plane/src/test-support/db.js';
import { quantile } from './lib/stats.js';

const { values } = parseArgs({ options: { queries: { type: 'string', default: '30000' }, rows: { type: 'string', default: '100' } } });
const QUERIES = Number(values.queries);
const ROWS = Number(values.rows);
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

const teardowns: Array<() => unknown> = [];
const { sql } = await testDatabase({ teardown: (fn) => void teardowns.unshift(fn) });

const pauses: number[] = [];
const observer = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    if ((e as unknown as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) pauses.push(e.duration);
  }
});
observer.observe({ entryTypes: ['gc'] });

/** `SELECT 1`: one row of one column. */
const one = () => sql`SELECT 1 AS x`;
/** `ROWS` rows of a number, a timestamp and a text each: the shape of a read route's result. */
const rows = () => sql`SELECT g AS id, now() AS at, 'row ' || g AS name FROM generate_series(1, ${ROWS}::int) g`;

/** The loop of `statement`, timed, with the scavenges that fell in it. */
async function phase(statement: () => Promise<unknown> = one): Promise<Record<string, number>> {
  for (let i = 0; i < 1000; i++) await statement(); // warm-up: code compiled, young generation sized
  await new Promise((r) => setImmediate(r)); // gc entries are delivered asynchronously
  pauses.length = 0;
  const t0 = performance.now();
  for (let i = 0; i < QUERIES; i++) await statement();
  const wall_s = (performance.now() - t0) / 1000;
  await new Promise((r) => setImmediate(r));
  return {
    heap_used_mb: round(process.memoryUsage().heapUsed / 1e6, 1),
    old_generation_mb: round(getHeapSpaceStatistics().filter((x) => ['old_space', 'large_object_space', 'code_space'].includes(x.space_name))
      .reduce((a, x) => a + x.space_size, 0) / 1e6, 1),
    scavenges: pauses.length,
    scavenge_p50_ms: round(quantile(pauses, 0.5)),
    scavenge_p99_ms: round(quantile(pauses, 0.99)),
    statements_per_s: Math.round(QUERIES / wall_s),
  };
}

try {
  const bare = await phase();
  await import('../../control-plane/src/app.js');
  const loaded = await phase();
  const { passwordStrength } = await import('../../control-plane/src/accounts/password-strength.js');
  await passwordStrength('correct horse battery staple', []);
  const after_password_check = await phase();
  const rows_loaded = await phase(rows);
  process.stdout.write(`${JSON.stringify({ queries: QUERIES, rows: ROWS, node: process.version, bare, control_plane_loaded: loaded, after_password_check, rows_loaded }, null, 2)}\n`);
} finally {
  observer.disconnect();
  for (const fn of teardowns) await fn();
}
