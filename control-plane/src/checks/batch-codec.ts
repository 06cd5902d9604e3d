import binding from 'zstd-napi/binding.js';
import type { CheckRow } from './history.db.js';
import { OUTPUT_DICTIONARY_V2 } from './output-codec.js';

/*
 * A node batch's checks packed into one row's columns: the layout measured for fresh check
 * history (docs/benchmarks.md "Check ingest", "Measured in Postgres (2026-12-01)": 57 bytes a
 * check on disk against about 187 for a row per check). Ingest does not write it yet; the benchmark
 * test/bench/batch-storage-bench.ts stores and reads it through these functions.
 *
 * A batch of n checks becomes three values:
 * - `series`: each check's series id, in the batch's order (the column a GIN index finds a
 *   series' batches by);
 * - `dir`, the directory, read without decompressing anything: a format byte (1), then per check
 *   its scheduled_at as an unsigned LEB128 varint of ms after the batch's first (`first_ms`), and
 *   its response_ms as a little-endian float32 (NaN: none; the precision of the `real` column a
 *   row per check stores it in), then success as a bitmap (bit i of byte i >> 3);
 * - `data`: a format byte (1), then one Zstandard frame (RFC 8878) compressed with the output
 *   dictionary (output-codec.ts OUTPUT_DICTIONARY_V2: the outputs are most of the bytes) of the
 *   checks' other fields as JSON lines, one per check in order:
 *   `[start_offset_ms, duration_ms, error_class, error, assertions, output]` (JSON text never
 *   holds a raw newline, so a line is a check).
 */

const DIR_FORMAT = 1;
const DATA_FORMAT = 1;
/**
 * Level 4 (the library's defaults otherwise): 38.5 data bytes a ping check; encoding takes about
 * 2.5 µs a check, 0.7 of it compressing (the rest is JSON). Level 6 saved data bytes but no pages.
 */
const LEVEL = 4;

/**
 * One check of a batch: the fields a row of `checks` holds (history.db.ts CheckRow), with
 * scheduled_at as an integer epoch ms, response_ms kept as a float32, and the assertions and
 * output as any JSON value (or null).
 */
export type BatchCheck = Pick<CheckRow, 'series_id' | 'start_offset_ms' | 'duration_ms' | 'response_ms' | 'success' | 'error_class' | 'error'> & {
  scheduled_ms: number;
  assertions: unknown;
  output: unknown;
};

/** A batch as stored: see the module comment. `first_ms`/`last_ms`: the earliest and latest scheduled_at, epoch ms. */
export interface EncodedBatch {
  first_ms: number;
  last_ms: number;
  series: number[];
  dir: Buffer;
  data: Buffer;
}

/** What a batch's directory says of its checks, in the batch's order. */
export interface BatchDirectory {
  scheduled_ms: number[];
  response_ms: Array<number | null>;
  success: boolean[];
}

/** The fields of a check only `data` holds. */
export type BatchDetails = Pick<BatchCheck, 'start_offset_ms' | 'duration_ms' | 'error_class' | 'error' | 'assertions' | 'output'>;

// One context each, kept for the process (the dictionary is loaded once, not per call), used
// through the native binding in one call each: the library's Decompressor streams into chunks of
// its own (reading one check of a 100-ping batch took 24-35 µs with it, 16-18 into a reused
// buffer; encoding cost the same either way). Frames carry their content size (the decoder sizes
// its buffer from it), no checksum, no dictionary id.
const cctx = new binding.CCtx();
for (const [parameter, value] of [
  [binding.CParameter.compressionLevel, LEVEL], [binding.CParameter.checksumFlag, 0], [binding.CParameter.dictIDFlag, 0],
] as const) cctx.setParameter(parameter, value);
cctx.loadDictionary(OUTPUT_DICTIONARY_V2);
const dctx = new binding.DCtx();
dctx.loadDictionary(OUTPUT_DICTIONARY_V2);
/** The largest batch text decompressed (a frame that claims more is refused as damaged). */
const MAX_TEXT_BYTES = 64 * 1024 * 1024;
// Buffers reused by every call for texts up to SCRATCH_BYTES (a batch of 100 pings: ~30 kB of
// text, as output-codec.ts does for single outputs): no buffer that size made per batch outside
// V8's heap. Larger texts get buffers of their own.
const SCRATCH_BYTES = 256 * 1024;
const textScratch = Buffer.allocUnsafe(SCRATCH_BYTES);
const dirScratch = Buffer.allocUnsafe(SCRATCH_BYTES);
const frameScratch = Buffer.allocUnsafe(1 + binding.compressBound(SCRATCH_BYTES));

/**
 * Pack `checks` (at least one, in the order they are to keep: positions in the batch are their
 * indexes) into a batch.
 * @throws RangeError for no checks, a series id that is not a positive integer or a scheduled_at
 *   that is not an integer epoch ms (the caller's bug: ingest validated them)
 */
export function encodeBatch(checks: BatchCheck[]): EncodedBatch {
  if (checks.length === 0) throw new RangeError('a batch holds at least one check');
  let first_ms = Infinity;
  let last_ms = -Infinity;
  for (const c of checks) {
    if (!Number.isSafeInteger(c.series_id) || c.series_id < 1) throw new RangeError(`series id ${c.series_id} is not a positive integer`);
    if (!Number.isSafeInteger(c.scheduled_ms)) throw new RangeError(`scheduled_at ${c.scheduled_ms} is not an integer epoch ms`);
    first_ms = Math.min(first_ms, c.scheduled_ms);
    last_ms = Math.max(last_ms, c.scheduled_ms);
  }
  const bitmap = Math.ceil(checks.length / 8);
  // At most 8 varint bytes for an offset below 2^53 ms, and 4 for the float.
  const dir_bytes = 1 + checks.length * 12 + bitmap;
  const dir = dir_bytes <= SCRATCH_BYTES ? dirScratch : Buffer.allocUnsafe(dir_bytes);
  let o = 0;
  dir[o++] = DIR_FORMAT;
  for (const c of checks) {
    for (let v = c.scheduled_ms - first_ms; ; v = Math.floor(v / 128)) {
      if (v < 128) {
        dir[o++] = v;
        break;
      }
      dir[o++] = (v % 128) | 128;
    }
    o = dir.writeFloatLE(c.response_ms ?? NaN, o);
  }
  dir.fill(0, o, o + bitmap);
  checks.forEach((c, i) => {
    if (c.success) dir[o + (i >> 3)] = dir[o + (i >> 3)]! | (1 << (i & 7));
  });
  o += bitmap;
  const lines = checks.map((c) => JSON.stringify([c.start_offset_ms, c.duration_ms, c.error_class, c.error, c.assertions ?? null, c.output ?? null]));
  const json = lines.join('\n');
  // At most 3 UTF-8 bytes a UTF-16 unit: a text this short surely fits (write() would cut it).
  const small = json.length * 3 <= SCRATCH_BYTES;
  const text = small ? textScratch.subarray(0, textScratch.write(json, 0, 'utf8')) : Buffer.from(json, 'utf8');
  const frame = small ? frameScratch : Buffer.allocUnsafe(1 + binding.compressBound(text.length));
  frame[0] = DATA_FORMAT;
  const length = cctx.compress2(frame.subarray(1), text);
  return { first_ms, last_ms, series: checks.map((c) => c.series_id), dir: Buffer.from(dir.subarray(0, o)), data: Buffer.from(frame.subarray(0, 1 + length)) };
}

/**
 * The directory `dir` of a batch of `count` checks whose earliest scheduled_at is `first_ms`.
 * @throws Error for an unknown format or a directory that does not hold exactly `count` checks (a damaged row)
 */
export function decodeDirectory(first_ms: number, count: number, dir: Uint8Array): BatchDirectory {
  if (dir[0] !== DIR_FORMAT) throw new Error(`unknown batch directory format ${dir[0]}`);
  const view = Buffer.from(dir.buffer, dir.byteOffset, dir.byteLength);
  const scheduled_ms: number[] = [];
  const response_ms: Array<number | null> = [];
  let o = 1;
  for (let i = 0; i < count; i++) {
    let v = 0;
    for (let m = 1; ; m *= 128) {
      if (o >= view.length || m > 2 ** 56) throw new Error('damaged batch directory: an offset runs past its end');
      const b = view[o++]!;
      v += (b & 127) * m;
      if (b < 128) break;
    }
    scheduled_ms.push(first_ms + v);
    if (o + 4 > view.length) throw new Error('damaged batch directory: a response time runs past its end');
    const r = view.readFloatLE(o);
    response_ms.push(Number.isNaN(r) ? null : r);
    o += 4;
  }
  if (view.length !== o + Math.ceil(count / 8)) throw new Error(`damaged batch directory: ${view.length} bytes for ${count} checks`);
  const success = Array.from({ length: count }, (_, i) => (view[o + (i >> 3)]! & (1 << (i & 7))) !== 0);
  return { scheduled_ms, response_ms, success };
}

/**
 * The details (`data`) of the checks at `positions` (0-based, ascending) of a batch of `count`
 * checks, in that order. Decompresses the whole frame and parses only those lines.
 * @throws Error for an unknown format, a frame that does not decompress, or not exactly `count` lines (a damaged row)
 * @throws RangeError for positions out of range or not ascending (the caller's bug)
 */
export function decodeDetails(data: Uint8Array, count: number, positions: number[]): BatchDetails[] {
  if (data[0] !== DATA_FORMAT) throw new Error(`unknown batch data format ${data[0]}`);
  const frame = Buffer.from(data.buffer, data.byteOffset + 1, data.byteLength - 1);
  let size: number | null;
  try {
    size = binding.getFrameContentSize(frame);
  } catch {
    size = null;
  }
  if (size === null || size > MAX_TEXT_BYTES) throw new Error('damaged batch data: not a frame of known size');
  const text = size <= SCRATCH_BYTES ? textScratch.subarray(0, size) : Buffer.allocUnsafe(size);
  if (dctx.decompress(text, frame) !== size) throw new Error('damaged batch data: the frame is shorter than it says');
  const starts = [0];
  for (let at = text.indexOf(10); at >= 0; at = text.indexOf(10, at + 1)) starts.push(at + 1);
  if (starts.length !== count) throw new Error(`damaged batch data: ${starts.length} lines for ${count} checks`);
  let previous = -1;
  return positions.map((p) => {
    if (!Number.isInteger(p) || p <= previous || p >= count) throw new RangeError(`position ${p} is out of range or out of order`);
    previous = p;
    const end = p + 1 < count ? starts[p + 1]! - 1 : text.length;
    const [start_offset_ms, duration_ms, error_class, error, assertions, output] = JSON.parse(text.toString('utf8', starts[p]!, end)) as
      [number, number, string | null, string | null, unknown, unknown];
    return { start_offset_ms, duration_ms, error_class, error, assertions, output };
  });
}
