/**
 * Benchmark (not a test): packed check blocks (control-plane/src/checks/pack-codec.ts) of ping
 * checks made as the node agent makes them, without Postgres: the agent's own statistics
 * (node-agent/src/probes/ping.ts rttStats, from the unrounded round trips), each check's round
 * trip drawn from 10 ms to 10 + `spread-ms`, each packet `jitter-ms` around it, packets lost at
 * `loss`; the response time as the checks table returns it (a `real`, read back as its shortest
 * decimal text). checks-bench.ts measures the blocks in Postgres, on its own (simpler) pings.
 *
 *   npx tsx test/bench/pack-codec-bench.ts [--blocks 200] [--spread-ms 30] [--jitter-ms 0.5] [--loss 0] [--repeats 5]
 *       [--layout series|batch]
 *
 * `blocks` series of an hour each. `--layout series` (the default): a block per series' hour, as
 * the pack job writes them. `--layout batch`: a block per minute holding that minute's check of
 * every series (`blocks` checks, each series at its own second), the shape of one node's batch to
 * the hub: what a row per ingest batch would hold (its series ids apart, in a directory of their
 * own), measured to size that design against the raw row per check.
 *
 * Prints JSON: the block format and layout, data bytes per check (the block's bytes alone: no row,
 * index or page), the bytes of each check's output as a raw row stores it today
 * (checks/output-codec.ts, for comparison), and the CPU of encodeBlock and decodeBlock per check
 * (µs, median of `repeats` passes). Every block is checked to decode to exactly its checks.
 * Against another format: run it with that version of pack-codec.ts.
 */
import { parseArgs } from 'node:util';
import { isDeepStrictEqual } from 'node:util';
import { encodeOutput } from '../../control-plane/src/checks/output-codec.js';
import { decodeBlock, encodeBlock, type PackedCheck } from '../../control-plane/src/checks/pack-codec.js';
import { rttStats } from '../../node-agent/src/probes/ping.js';
import { median } from './lib/stats.js';

const { values } = parseArgs({ options: {
  blocks: { type: 'string', default: '200' }, 'spread-ms': { type: 'string', default: '30' }, 'jitter-ms': { type: 'string', default: '0.5' },
  loss: { type: 'string', default: '0' }, repeats: { type: 'string', default: '5' }, layout: { type: 'string', default: 'series' },
} });
const LAYOUT = values.layout;
if (LAYOUT !== 'series' && LAYOUT !== 'batch') throw new Error(`--layout: series or batch, not ${LAYOUT}`);
const [BLOCKS, SPREAD_MS, JITTER_MS, LOSS, REPEATS] = [values.blocks, values['spread-ms'], values['jitter-ms'], values.loss, values.repeats].map(Number) as [number, number, number, number, number];

let seed = 42;
const rnd = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
const round3 = (x: number) => Math.round(x * 1000) / 1000;
/** What Postgres returns for `x` stored as a real (float4): its shortest decimal text, read back. */
function asReal(x: number): number {
  const f = Math.fround(x);
  for (let p = 1; p <= 9; p++) if (Math.fround(Number(f.toPrecision(p))) === f) return Number(f.toPrecision(p));
  return f;
}

let made = 0;
/** An hour of one series' ping checks, one a minute, 4 echo requests each (at second 17, or at the series' own second for `--layout batch`). */
function hourOfPings(hour: Date): PackedCheck[] {
  const second = LAYOUT === 'batch' ? made++ % 60 : 17;
  return Array.from({ length: 60 }, (_, i) => {
    const base = 10 + rnd() * SPREAD_MS;
    const raw = Array.from({ length: 4 }, () => (rnd() < LOSS ? null : base + rnd() * JITTER_MS));
    const got = raw.filter((x): x is number => x !== null);
    const s = rttStats(got);
    const output = {
      resolved_address: '198.18.1.10', packets_sent: 4, packets_received: got.length, packet_loss: Math.round(((4 - got.length) / 4) * 10000) / 100,
      rtt_min_ms: s.min, rtt_avg_ms: s.avg, rtt_max_ms: s.max, rtt_stddev_ms: s.stddev,
      packets: raw.map((rtt, k) => ({ seq: k + 1, rtt_ms: rtt === null ? null : round3(rtt), ttl: rtt === null ? null : 57 })),
    };
    return {
      scheduled_at: new Date(hour.getTime() + second * 1000 + i * 60_000), start_offset_ms: Math.floor(rnd() * 5), duration_ms: 3000 + Math.floor(base + rnd() * 3),
      response_ms: s.avg === null ? null : asReal(s.avg), success: got.length > 0, error_class: got.length > 0 ? null : 'timeout',
      error: got.length > 0 ? null : 'no echo reply', assertions: [], output,
    };
  });
}

const hour = new Date('2026-11-20T10:00:00.000Z');
const series = Array.from({ length: BLOCKS }, () => hourOfPings(hour));
/**
 * `series`: each block one series' hour (what the pack job writes). `batch`: each block one
 * minute's check of every series, ordered by time (what one node's batch to the hub holds; no
 * series ids in the block: a row of them would carry its own directory).
 */
const blocks = LAYOUT === 'series' ? series
  : Array.from({ length: 60 }, (_, m) => series.map((s) => s[m]!).sort((a, b) => a.scheduled_at.getTime() - b.scheduled_at.getTime()));
const checks = BLOCKS * 60;
const encoded = blocks.map((b) => encodeBlock(hour, b));
blocks.forEach((b, i) => {
  if (!isDeepStrictEqual(decodeBlock(hour, encoded[i]!), b)) throw new Error(`block ${i} does not decode to its checks`);
});
const cpu_us = (fn: () => void) => {
  const c0 = process.cpuUsage();
  fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / checks;
};
const enc: number[] = [];
const dec: number[] = [];
for (let r = 0; r < REPEATS; r++) {
  enc.push(cpu_us(() => blocks.forEach((b) => encodeBlock(hour, b))));
  dec.push(cpu_us(() => encoded.forEach((d) => decodeBlock(hour, d))));
}
const outputs = blocks.reduce((n, b) => n + b.reduce((m, c) => m + encodeOutput(c.output).length, 0), 0);
console.log(JSON.stringify({
  format: encoded[0]![0], layout: LAYOUT, checks, checks_per_block: Math.round(checks / blocks.length), spread_ms: SPREAD_MS, jitter_ms: JITTER_MS, loss: LOSS,
  data_bytes_per_check: Math.round((encoded.reduce((n, d) => n + d.length, 0) / checks) * 100) / 100,
  stored_output_bytes_per_check: Math.round((outputs / checks) * 100) / 100,
  encode_us_per_check: Math.round(median(enc) * 10) / 10, decode_us_per_check: Math.round(median(dec) * 10) / 10,
}, null, 2));
