/**
 * Benchmark (not a test): check outputs as stored (control-plane/src/checks/output-codec.ts), without
 * Postgres: ping outputs as checks-bench.ts makes them (checks/test-support.ts pingResult, round
 * trips spread over 1-730 ms), encoded as a check's output was stored alone before batches (encodeOutput) and decoded as the history reads them (decodeOutput).
 *
 *   npx tsx test/bench/output-codec-bench.ts [--outputs 2000] [--repeats 11]
 *
 * Prints JSON: stored bytes per output, and the CPU per output of encoding and decoding (µs,
 * median of `repeats` passes over every output). Every output is checked to decode to itself.
 * Against another version of the codec: run it with that version of output-codec.ts.
 */
import { isDeepStrictEqual, parseArgs } from 'node:util';
import { decodeOutput, encodeOutput } from '../../control-plane/src/checks/output-codec.js';
import { pingResult } from '../../control-plane/src/checks/test-support.js';
import { median } from './lib/stats.js';

const { values } = parseArgs({ options: { outputs: { type: 'string', default: '2000' }, repeats: { type: 'string', default: '11' } } });
const [OUTPUTS, REPEATS] = [values.outputs, values.repeats].map(Number) as [number, number];

const at = new Date('2026-11-30T10:00:00.000Z').toISOString();
const outputs = Array.from({ length: OUTPUTS }, (_, i) => pingResult('m_bench', at, 1 + (i % 997) * 0.731).output);
const stored = outputs.map((o) => Buffer.from(encodeOutput(o)));
outputs.forEach((o, i) => {
  if (!isDeepStrictEqual(decodeOutput(stored[i]!), o)) throw new Error(`output ${i} does not decode to itself`);
});
const cpu_us = (fn: (o: unknown, i: number) => unknown) => {
  const c0 = process.cpuUsage();
  outputs.forEach(fn);
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / OUTPUTS;
};
const encode: number[] = [];
const decode: number[] = [];
for (let r = 0; r < REPEATS; r++) {
  encode.push(cpu_us((o) => encodeOutput(o)));
  decode.push(cpu_us((_, i) => decodeOutput(stored[i]!)));
}
const r2 = (x: number) => Math.round(x * 100) / 100;
console.log(JSON.stringify({
  outputs: OUTPUTS, repeats: REPEATS, stored_bytes_per_output: r2(stored.reduce((n, s) => n + s.length, 0) / OUTPUTS),
  encode_us_per_output: r2(median(encode)), decode_us_per_output: r2(median(decode)),
}, null, 2));
