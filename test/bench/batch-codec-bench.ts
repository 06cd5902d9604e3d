/**
 * Benchmark (not a test): the data column of check batches (control-plane/src/checks/batch-codec.ts)
 * without Postgres, the format written now against format 1 (a JSON line per check, level 4, the
 * same dictionary), which this script builds itself as the peer: what the batch rows held before.
 *
 *   npx tsx test/bench/batch-codec-bench.ts [--batches 300] [--checks 100] [--spread-ms 30] [--jitter-ms 0.5] [--repeats 5]
 *
 * Each batch is one node's minute: `checks` checks of as many series, each at its own second, of
 * three kinds of output: ping checks made as the node agent makes them (node-agent
 * src/probes/ping.ts rttStats from unrounded round trips, each check's round trip drawn from 10 ms
 * to 10 + `spread-ms`, each packet `jitter-ms` around it), HTTP checks (checks/test-support.ts
 * httpResult's output with the response and timing drawn per check), and a mix (every fifth check
 * an HTTP one with an assertion, one in twenty a failed ping without output).
 *
 * Prints JSON per kind and format: data bytes per check (the column alone: no row, index or
 * TOAST page), CPU per check to encode, and per batch to read one check's details and all of them
 * (µs, median of `repeats` passes). Every batch is checked to decode to exactly its checks.
 */
import { createRequire } from 'node:module';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import { decodeDetails, encodeBatch, type BatchCheck } from '../../control-plane/src/checks/batch-codec.js';
import { OUTPUT_DICTIONARY_V2 } from '../../control-plane/src/checks/output-codec.js';
import { httpResult } from '../../control-plane/src/checks/test-support.js';
import { rttStats } from '../../node-agent/src/probes/ping.js';
import { median } from './lib/stats.js';

const { values } = parseArgs({ options: {
  batches: { type: 'string', default: '300' }, checks: { type: 'string', default: '100' }, 'spread-ms': { type: 'string', default: '30' },
  'jitter-ms': { type: 'string', default: '0.5' }, repeats: { type: 'string', default: '5' },
} });
// The control plane's own Zstandard binding (a dependency of that package, not of the repository root).
interface Zstd {
  CCtx: new () => { setParameter(p: number, v: number): void; loadDictionary(d: Buffer): void; compress2(dst: Buffer, src: Buffer): number };
  CParameter: { compressionLevel: number; checksumFlag: number; dictIDFlag: number };
  compressBound(n: number): number;
}
const binding = createRequire(new URL('../../control-plane/package.json', import.meta.url))('zstd-napi/binding.js') as Zstd;
const [BATCHES, CHECKS, SPREAD_MS, JITTER_MS, REPEATS] = [values.batches, values.checks, values['spread-ms'], values['jitter-ms'], values.repeats].map(Number) as [number, number, number, number, number];

let seed = 42;
const rnd = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
const round3 = (x: number) => Math.round(x * 1000) / 1000;
const at = Date.parse('2026-11-20T10:00:00.000Z');

function ping(i: number, failed: boolean): BatchCheck {
  const base = 10 + rnd() * SPREAD_MS;
  const raw = Array.from({ length: 4 }, () => base + rnd() * JITTER_MS);
  const s = rttStats(raw);
  const output = failed ? null : {
    resolved_address: '198.18.1.10', packets_sent: 4, packets_received: 4, packet_loss: 0,
    rtt_min_ms: s.min, rtt_avg_ms: s.avg, rtt_max_ms: s.max, rtt_stddev_ms: s.stddev,
    packets: raw.map((rtt, k) => ({ seq: k + 1, rtt_ms: round3(rtt), ttl: 57 })),
  };
  return {
    series_id: 1000 + i, scheduled_ms: at + (i % 60) * 1000, start_offset_ms: Math.floor(rnd() * 5), duration_ms: failed ? 5000 : 3000 + Math.floor(base),
    response_ms: failed ? null : Math.fround(s.avg!), success: !failed, error_class: failed ? 'timeout' : null, error: failed ? 'no echo reply' : null,
    assertions: null, output,
  };
}

function http(i: number, asserted: boolean): BatchCheck {
  const ms = Math.round(40 + rnd() * 200);
  const output = httpResult('m', new Date(at).toISOString(), { response_ms: ms }).output as Record<string, unknown>;
  output.timing = { dns_ms: Math.round(rnd() * 5), tcp_ms: Math.round(5 + rnd() * 20), tls_ms: Math.round(10 + rnd() * 30), ttfb_ms: ms - 35, download_ms: Math.round(rnd() * 8) };
  output.response_size = 1000 + Math.floor(rnd() * 500);
  return {
    series_id: 1000 + i, scheduled_ms: at + (i % 60) * 1000, start_offset_ms: Math.floor(rnd() * 5), duration_ms: ms + 2, response_ms: ms, success: true,
    error_class: null, error: null, assertions: asserted ? [{ source: 'status_code', comparison: 'equals', target: 200, actual: 200, passed: true }] : null, output,
  };
}

const KINDS: Record<string, (i: number) => BatchCheck> = {
  ping: (i) => ping(i, false),
  http: (i) => http(i, false),
  mixed: (i) => (i % 5 === 0 ? http(i, true) : ping(i, i % 20 === 7)),
};

// Format 1 as batch-codec.ts wrote it before: a JSON line per check, level 4, the same dictionary.
const cctx1 = new binding.CCtx();
cctx1.setParameter(binding.CParameter.compressionLevel, 4);
cctx1.setParameter(binding.CParameter.checksumFlag, 0);
cctx1.setParameter(binding.CParameter.dictIDFlag, 0);
cctx1.loadDictionary(OUTPUT_DICTIONARY_V2);
function lineFormat(checks: BatchCheck[]): Buffer {
  const text = Buffer.from(checks.map((c) => JSON.stringify([c.start_offset_ms, c.duration_ms, c.error_class, c.error, c.assertions ?? null, c.output ?? null])).join('\n'));
  const frame = Buffer.allocUnsafe(1 + binding.compressBound(text.length));
  frame[0] = 1;
  return Buffer.from(frame.subarray(0, 1 + cctx1.compress2(frame.subarray(1), text)));
}

const cpu_us = (fn: () => void, per: number) => {
  const c0 = process.cpuUsage();
  fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / per;
};
const r1 = (x: number) => Math.round(x * 10) / 10;

const out: Record<string, unknown> = { batches: BATCHES, checks_per_batch: CHECKS, spread_ms: SPREAD_MS, jitter_ms: JITTER_MS };
for (const [kind, make] of Object.entries(KINDS)) {
  const batches = Array.from({ length: BATCHES }, () => Array.from({ length: CHECKS }, (_, i) => make(i)));
  const all = Array.from({ length: CHECKS }, (_, i) => i);
  for (const [name, encode] of [['format_1', lineFormat], ['format_2', (b: BatchCheck[]) => encodeBatch(b).data]] as const) {
    const data = batches.map(encode);
    batches.forEach((b, i) => {
      const want = b.map(({ start_offset_ms, duration_ms, error_class, error, assertions, output }) => ({ start_offset_ms, duration_ms, error_class, error, assertions, output }));
      if (!isDeepStrictEqual(decodeDetails(data[i]!, CHECKS, all), want)) throw new Error(`${kind} ${name}: batch ${i} does not decode to its checks`);
    });
    const enc: number[] = [];
    const one: number[] = [];
    const every: number[] = [];
    for (let r = 0; r < REPEATS; r++) {
      enc.push(cpu_us(() => batches.forEach((b) => encode(b)), BATCHES * CHECKS));
      one.push(cpu_us(() => data.forEach((d, i) => decodeDetails(d, CHECKS, [i % CHECKS])), BATCHES));
      every.push(cpu_us(() => data.forEach((d) => decodeDetails(d, CHECKS, all)), BATCHES));
    }
    out[`${kind}_${name}`] = {
      data_bytes_per_check: Math.round((data.reduce((n, d) => n + d.length, 0) / (BATCHES * CHECKS)) * 100) / 100,
      encode_us_per_check: r1(median(enc)), read_one_us_per_batch: r1(median(one)), read_all_us_per_batch: r1(median(every)),
    };
  }
}
console.log(JSON.stringify(out, null, 2));
