import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { testDatabase } from '../test-support/db.js';

// A statement's result must die young. Unpatched, `postgres` 3.4.9 stored two arrow functions on
// every query (a Promise subclass): `this.resolve = x => …` and `this.reject = x => …`. With
// those on it, the query and the rows it resolved with outlived V8's young-generation
// collections (scavenges) until the next full collection: in a loop of 100-row statements about
// 3 MB were promoted per scavenge and each scavenge paused the process 3-7 ms, where the same
// loop on the patched driver promotes next to nothing and pauses about 0.1 ms (docs/benchmarks.md
// "Monitor list, uptime and stats latency", eleventh round). control-plane/patches/postgres@3.4.9.patch
// keeps the promise's own settle functions and makes resolve() and reject() methods.
//
// The figure is read from V8's own trace (--trace-gc-nvp: one line per collection with the bytes
// it promoted) in a child process that runs nothing but the driver, so the test does not depend
// on timing: what survives a scavenge is what is reachable, however busy the machine.

const CONTROL_PLANE = fileURLToPath(new URL('../..', import.meta.url));

/** The child: 100 warm-up statements, then `n` statements of 100 rows one after the other between START and END. */
const CHILD = `
import postgres from 'postgres';
const sql = postgres(process.env.RETENTION_DATABASE_URL, { max: 2, onnotice: () => {} });
const read = () => sql\`SELECT g AS a, now() AS b, 'row ' || g AS c, g * 1.5 AS d FROM generate_series(1, 100) g\`;
for (let i = 0; i < 100; i++) await read();
console.log('START');
for (let i = 0; i < Number(process.env.RETENTION_STATEMENTS); i++) await read();
console.log('END');
await sql.end({ timeout: 5 });
`;

/** Bytes promoted by each scavenge between START and END of the child's output. */
function promotedPerScavenge(out: string): number[] {
  const inside = out.slice(out.indexOf('START'), out.indexOf('END'));
  return inside.split('\n').filter((l) => / gc=s /.test(l)).map((l) => Number(/ promoted=(\d+)/.exec(l)?.[1] ?? NaN));
}

t.test('a query and its rows do not outlive a young-generation collection', async (t) => {
  const { url } = await testDatabase(t);
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ['--trace-gc-nvp', '--input-type=module', '-e', CHILD], {
      cwd: CONTROL_PLANE, env: { ...process.env, RETENTION_DATABASE_URL: url, RETENTION_STATEMENTS: '3000' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (x: Buffer) => { stdout += x.toString(); });
    child.stderr.on('data', (x: Buffer) => { stderr += x.toString(); });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`child exited ${code}: ${stderr.slice(-2000)}`))));
  });
  t.ok(out.includes('START') && out.includes('END'), 'the child ran its statements');
  const promoted = promotedPerScavenge(out).sort((a, b) => a - b);
  // 3,000 statements allocate about 70 MB: several scavenges whatever the young generation's size.
  t.ok(promoted.length >= 3, `scavenges while the statements ran: ${promoted.length}`);
  t.ok(promoted.every((x) => Number.isFinite(x)), 'every scavenge line gives its promoted bytes');
  const median = promoted[Math.floor(promoted.length / 2)]!;
  // Unpatched: about 3 MB per scavenge (every result since the last one). Patched: a few kB.
  t.ok(median < 256 * 1024, `median bytes promoted per scavenge: ${median} (< 256 kB)`);
});
