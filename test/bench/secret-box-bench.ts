/**
 * Benchmark (not a test): the cost of sealing and opening one monitor header secret
 * (control-plane/src/secrets/secret-box.ts, AES-256-GCM with a fresh IV and the monitor/header as
 * associated data): what each create or PATCH pays per secret header, and each assignment frame
 * and masked read per secret header. Prints the median of 5 runs, µs per value.
 *
 *   npx tsx test/bench/secret-box-bench.ts [--values 100000] [--chars 55]
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { createSecretBox } from '../../control-plane/src/secrets/secret-box.js';

const { values } = parseArgs({ options: { values: { type: 'string', default: '100000' }, chars: { type: 'string', default: '55' } } });
const n = Number(values.values);
const secret = randomBytes(Number(values.chars)).toString('base64').slice(0, Number(values.chars));
const box = createSecretBox({ current: randomBytes(32).toString('base64') });
const aad = (i: number) => `monitor:m_${i}:header:authorization`;
for (let i = 0; i < 5000; i++) box.open(box.seal(secret, aad(i)), aad(i));

const seal_us: number[] = [];
const open_us: number[] = [];
for (let run = 0; run < 5; run++) {
  const sealed: string[] = new Array(n);
  let t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) sealed[i] = box.seal(secret, aad(i));
  seal_us.push(Number(process.hrtime.bigint() - t0) / n / 1000);
  t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) box.open(sealed[i]!, aad(i));
  open_us.push(Number(process.hrtime.bigint() - t0) / n / 1000);
}
const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
console.log(`seal: median ${median(seal_us).toFixed(2)} µs per value; open: median ${median(open_us).toFixed(2)} µs per value (${n} values of ${secret.length} characters, 5 runs)`);
