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

/**
 * The second child: on the app's own client (db/sql.ts connect: its text[] parser), statements of
 * 100 rows with a text[] column are first held, 30,000 rows at once across several scavenges, as
 * a job holds a long result. V8 then pretenures the allocation sites whose objects outlived them:
 * a site's objects are made in the old generation from then on, where each keeps the young values
 * it points to alive until the next full collection. The same statements one after the other
 * follow, between START and END.
 */
const HELD_CHILD = `
import { connect } from './src/db/sql.ts';
const sql = connect(process.env.RETENTION_DATABASE_URL, 2);
const read = () => sql\`SELECT g AS a, now() AS b, 'row ' || g AS c,
  ARRAY['node_0123456789abcdef' || g, 'node_' || g || '_0123456789abcdef', NULL]::text[] AS node_ids FROM generate_series(1, 100) g\`;
const held = [];
for (let i = 0; i < 300; i++) held.push(await read());
held.length = 0;
for (let i = 0; i < 100; i++) await read();
console.log('START');
for (let i = 0; i < Number(process.env.RETENTION_STATEMENTS); i++) await read();
console.log('END');
await sql.end({ timeout: 5 });
`;

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

/** Run `script` in a child traced by V8 (`node_args` before it) on a scratch database; its stdout. */
async function traced(t: Parameters<typeof testDatabase>[0], script: string, node_args: string[] = []): Promise<string> {
  const { url } = await testDatabase(t);
  return new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [...node_args, '--trace-gc-nvp', '--input-type=module', '-e', script], {
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
}

t.test('a query and its rows do not outlive a young-generation collection', async (t) => {
  const out = await traced(t, CHILD);
  t.ok(out.includes('START') && out.includes('END'), 'the child ran its statements');
  const promoted = promotedPerScavenge(out).sort((a, b) => a - b);
  // 3,000 statements allocate about 70 MB: several scavenges whatever the young generation's size.
  t.ok(promoted.length >= 3, `scavenges while the statements ran: ${promoted.length}`);
  t.ok(promoted.every((x) => Number.isFinite(x)), 'every scavenge line gives its promoted bytes');
  const median = promoted[Math.floor(promoted.length / 2)]!;
  // Unpatched: about 3 MB per scavenge (every result since the last one). Patched: a few kB.
  t.ok(median < 256 * 1024, `median bytes promoted per scavenge: ${median} (< 256 kB)`);
});

t.test('rows and text[] values stay young after results were held (allocation-site pretenuring)', async (t) => {
  // Before text[] values were made by String.prototype.split (db/text-array.ts), their arrays came
  // from an array literal whose allocation site V8 pretenured here, and the loop promoted 3.3 MB
  // per scavenge (median); since, a few hundred bytes.
  const out = await traced(t, HELD_CHILD, ['--import', 'tsx']);
  t.ok(out.includes('START') && out.includes('END'), 'the child held results, then ran its statements');
  const promoted = promotedPerScavenge(out).sort((a, b) => a - b);
  t.ok(promoted.length >= 3, `scavenges while the statements ran: ${promoted.length}`);
  const median = promoted[Math.floor(promoted.length / 2)]!;
  t.ok(median < 256 * 1024, `median bytes promoted per scavenge: ${median} (< 256 kB)`);
});
