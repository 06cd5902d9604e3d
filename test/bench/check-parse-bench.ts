/**
 * Benchmark (not a test): the control plane's CPU per monitor ping result for each step of ingest
 * that needs no database, on the results checks-bench.ts sends: the frame's `JSON.parse`, the
 * hub's `resultEnvelopeSchema` (validation and sanitising; `envelope_cleared_parse_us`: the
 * schema the hub uses for a frame whose text cannot hold what sanitising replaces, without the
 * walk; `envelope_zod_parse_us`: zod's own parse of the monitor result schema alone, which that
 * schema ran for every result before shared-protocol zod-accept.ts took most of them as they are;
 * and `frame_check_us`: that check of the frame's bytes, shared-protocol
 * jsonMayHoldUnstorable, per result of a 100-result frame), the result sink's sanitising of the
 * parsed result (`sink_sanitise_us`: a second walk, as the sink did for every result before;
 * `sink_sanitised_once_us`: what it does now, probes/sink.ts sanitizedOnce on the hub's batch of
 * 100, which returns an array parseBatchResults built as it is), and the stored output's encoding (checks/output-codec.ts
 * encodeOutput, zstd). Prints
 * JSON: the median of `runs` runs, µs of process CPU (user + system) per result.
 *
 *   npx tsx test/bench/check-parse-bench.ts [--results 5000] [--runs 7]
 */
import { parseArgs } from 'node:util';
import { clearedResultEnvelopeSchema, jsonMayHoldUnstorable, monitorResultEnvelopeSchema, newId, parseBatchResults, resultEnvelopeSchema, sanitizedOnce, sanitizeStrings } from '@vantage/shared-protocol';
import { pingResult } from '../../control-plane/src/checks/test-support.js';
import { encodeOutput } from '../../control-plane/src/checks/output-codec.js';
import { median } from './lib/stats.js';

const { values } = parseArgs({ options: { results: { type: 'string', default: '5000' }, runs: { type: 'string', default: '7' } } });
const N = Number(values.results);
const RUNS = Number(values.runs);
// Each step is timed over this many passes of the results per run (a pass of 5,000 takes a few ms).
const PASSES = 4;

const scheduled_at = new Date(Date.now() - 60_000).toISOString();
const texts = Array.from({ length: N }, () => JSON.stringify(pingResult(newId('monitor'), scheduled_at, 10 + Math.random() * 30)));
const objects = texts.map((text) => JSON.parse(text) as unknown);
const parsed = objects.map((o) => resultEnvelopeSchema.parse(o));
// Frames of 100 results as the hub receives them (bytes), and their results as it parses them.
const frames = Array.from({ length: Math.ceil(N / 100) }, (_, f) => Buffer.from(`{"type":"result.batch","batch_id":${f},"results":[${texts.slice(f * 100, f * 100 + 100).join(',')}]}`));
const batches = frames.map((frame, f) => parseBatchResults(frame, objects.slice(f * 100, f * 100 + 100)).valid);

/** µs of CPU per result of `step(i)` over every result, median of RUNS runs. */
function cpuUsPerResult(step: (i: number) => unknown): number {
  const runs: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const c0 = process.cpuUsage();
    for (let pass = 0; pass < PASSES; pass++) for (let i = 0; i < N; i++) step(i);
    const c = process.cpuUsage(c0);
    runs.push((c.user + c.system) / (PASSES * N));
  }
  return Math.round(median(runs) * 100) / 100;
}

console.log(JSON.stringify({
  results: N,
  runs: RUNS,
  json_parse_us: cpuUsPerResult((i) => JSON.parse(texts[i]!)),
  envelope_parse_us: cpuUsPerResult((i) => resultEnvelopeSchema.parse(objects[i])),
  envelope_cleared_parse_us: cpuUsPerResult((i) => clearedResultEnvelopeSchema.parse(objects[i])),
  envelope_zod_parse_us: cpuUsPerResult((i) => monitorResultEnvelopeSchema.parse(objects[i])),
  frame_check_us: cpuUsPerResult((i) => (i % 100 === 0 ? jsonMayHoldUnstorable(frames[i / 100]!) : false)),
  sink_sanitise_us: cpuUsPerResult((i) => sanitizeStrings(parsed[i])),
  sink_sanitised_once_us: cpuUsPerResult((i) => (i % 100 === 0 ? sanitizedOnce(batches[i / 100]!) : null)),
  encode_output_us: cpuUsPerResult((i) => encodeOutput(parsed[i]!.output)),
}, null, 2));
