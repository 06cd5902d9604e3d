import binding from 'zstd-napi/binding.js';
import type { CheckRow } from './history.db.js';
import { buildDocument, compileShape, ShapeTable } from './batch-shapes.js';
import { OUTPUT_DICTIONARY_V2 } from './output-codec.js';

/*
 * A node batch's checks packed into one row's columns: the layout measured for fresh check
 * history (docs/benchmarks.md "Check ingest", "Measured in Postgres (2026-12-01)": 57 bytes a
 * check on disk against about 187 for a row per check). Ingest writes node checks so
 * (ingest.db.ts storeNodeChecks); entries.db.ts reads them back.
 *
 * A batch of n checks becomes three values:
 * - `series`: each check's series id, in the batch's order (the column a GIN index finds a
 *   series' batches by);
 * - `dir`, the directory, read without decompressing anything (by SQL too: 0101_check_batches.sql
 *   check_batch_entry): a format byte (2), then per check its scheduled_at as 3 big-endian bytes of
 *   ms after the batch's first (`first_ms`; a batch spans less than 2^24 ms), then per check its
 *   response_ms as a big-endian float32 (NaN: none; the precision of the `real` column a row per
 *   check stores it in), then success as a bitmap (bit i & 7 of byte i >> 3). Fixed widths: a
 *   check is read without reading the others;
 * - `data`: a format byte, then one Zstandard frame (RFC 8878) compressed with the output
 *   dictionary (output-codec.ts OUTPUT_DICTIONARY_V2) of the checks' other fields as lines of
 *   JSON text (which never holds a raw newline). Format 2, written now: first the batch's table
 *   of document shapes (checks/batch-shapes.ts: an array of the documents with every number
 *   written 0 and every string "", a batch of pings has one), then one line per check in order,
 *   `[start_offset_ms, duration_ms, error_class, error, a, ...leaves of a, o, ...leaves of o]`,
 *   where a and o are the numbers of its assertions' and its output's shapes in the table (from
 *   1; 0: none) and their leaves its numbers and strings in document order: the keys are written
 *   once a batch, 25 bytes a ping check compressed instead of 33-38. Format 1, still read: one
 *   line per check, `[start_offset_ms, duration_ms, error_class, error, assertions, output]`.
 */

const DIR_FORMAT = 2;
/** A batch spans less than this many ms (its offsets are 3 bytes). */
export const BATCH_SPAN_MS = 2 ** 24;
const DATA_FORMAT_LINES = 1;
const DATA_FORMAT_SHAPES = 2;
/**
 * Level 6 (the library's defaults otherwise): 25.3 data bytes a ping check (level 4: 26.9; format
 * 1 at level 4: 33-38); about 3 µs a check to encode (format 1: 2.6), most of it the JSON.
 */
const LEVEL = 6;

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
  if (last_ms - first_ms >= BATCH_SPAN_MS) throw new RangeError(`a batch spans ${last_ms - first_ms} ms, not less than ${BATCH_SPAN_MS}`);
  const n = checks.length;
  const dir = Buffer.allocUnsafe(1 + 7 * n + Math.ceil(n / 8));
  dir[0] = DIR_FORMAT;
  dir.fill(0, 1 + 7 * n);
  checks.forEach((c, i) => {
    dir.writeUIntBE(c.scheduled_ms - first_ms, 1 + 3 * i, 3);
    dir.writeFloatBE(c.response_ms ?? NaN, 1 + 3 * n + 4 * i);
    if (c.success) dir[1 + 7 * n + (i >> 3)] = dir[1 + 7 * n + (i >> 3)]! | (1 << (i & 7));
  });
  const shapes = new ShapeTable();
  const lines = checks.map((c) => {
    const row: unknown[] = [c.start_offset_ms, c.duration_ms, c.error_class, c.error];
    shapes.append(c.assertions, row);
    shapes.append(c.output, row);
    return JSON.stringify(row);
  });
  lines.unshift(shapes.toJSON());
  const json = lines.join('\n');
  // At most 3 UTF-8 bytes a UTF-16 unit: a text this short surely fits (write() would cut it).
  const small = json.length * 3 <= SCRATCH_BYTES;
  const text = small ? textScratch.subarray(0, textScratch.write(json, 0, 'utf8')) : Buffer.from(json, 'utf8');
  const frame = small ? frameScratch : Buffer.allocUnsafe(1 + binding.compressBound(text.length));
  frame[0] = DATA_FORMAT_SHAPES;
  const length = cctx.compress2(frame.subarray(1), text);
  return { first_ms, last_ms, series: checks.map((c) => c.series_id), dir, data: Buffer.from(frame.subarray(0, 1 + length)) };
}

/**
 * The directory `dir` of a batch of `count` checks whose earliest scheduled_at is `first_ms`.
 * @throws Error for an unknown format or a directory that does not hold exactly `count` checks (a damaged row)
 */
export function decodeDirectory(first_ms: number, count: number, dir: Uint8Array): BatchDirectory {
  if (dir[0] !== DIR_FORMAT) throw new Error(`unknown batch directory format ${dir[0]}`);
  const view = Buffer.from(dir.buffer, dir.byteOffset, dir.byteLength);
  if (view.length !== 1 + 7 * count + Math.ceil(count / 8)) throw new Error(`damaged batch directory: ${view.length} bytes for ${count} checks`);
  const scheduled_ms: number[] = [];
  const response_ms: Array<number | null> = [];
  for (let i = 0; i < count; i++) {
    scheduled_ms.push(first_ms + view.readUIntBE(1 + 3 * i, 3));
    const r = view.readFloatBE(1 + 3 * count + 4 * i);
    response_ms.push(Number.isNaN(r) ? null : r);
  }
  const o = 1 + 7 * count;
  const success = Array.from({ length: count }, (_, i) => (view[o + (i >> 3)]! & (1 << (i & 7))) !== 0);
  return { scheduled_ms, response_ms, success };
}

/**
 * The details (`data`, format 2 or 1) of the checks at `positions` (0-based, ascending) of a batch
 * of `count` checks, in that order. Decompresses the whole frame and parses only the lines of
 * those checks (and format 2's table of shapes).
 * @throws Error for an unknown format, a frame that does not decompress, or text that does not
 *   hold exactly `count` checks (a damaged row)
 * @throws RangeError for positions out of range or not ascending (the caller's bug)
 */
export function decodeDetails(data: Uint8Array, count: number, positions: number[]): BatchDetails[] {
  const format = data[0];
  if (format !== DATA_FORMAT_SHAPES && format !== DATA_FORMAT_LINES) throw new Error(`unknown batch data format ${format}`);
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
  const shaped = format === DATA_FORMAT_SHAPES;
  const starts = [0];
  for (let at = text.indexOf(10); at >= 0; at = text.indexOf(10, at + 1)) starts.push(at + 1);
  const lines = shaped ? count + 1 : count;
  if (starts.length !== lines) throw new Error(`damaged batch data: ${starts.length} lines for ${count} checks`);
  const line = (l: number) => JSON.parse(text.toString('utf8', starts[l]!, l + 1 < lines ? starts[l + 1]! - 1 : text.length)) as unknown[];
  const shapes = shaped && positions.length > 0 ? new Shapes(line(0)) : null;
  let previous = -1;
  return positions.map((p) => {
    if (!Number.isInteger(p) || p <= previous || p >= count) throw new RangeError(`position ${p} is out of range or out of order`);
    previous = p;
    const fields = line(shaped ? p + 1 : p);
    if (!Array.isArray(fields)) throw new Error(`damaged batch data: check ${p} is not a list`);
    const [start_offset_ms, duration_ms, error_class, error] = fields as [number, number, string | null, string | null];
    if (!shaped) return { start_offset_ms, duration_ms, error_class, error, assertions: fields[4], output: fields[5] };
    const at = { i: 4 };
    const assertions = shapes!.documentAt(fields, at);
    const output = shapes!.documentAt(fields, at);
    if (at.i !== fields.length) throw new Error(`damaged batch data: check ${p} has ${fields.length - at.i} values left over`);
    return { start_offset_ms, duration_ms, error_class, error, assertions, output };
  });
}

/** Format 2's table of shapes (its first line), each compiled when a check first needs it. */
class Shapes {
  private readonly compiled: Array<ReturnType<typeof compileShape> | undefined>;
  /** @throws Error when `table` is not an array (a damaged row) */
  constructor(private readonly table: unknown) {
    if (!Array.isArray(table)) throw new Error('damaged batch data: no table of shapes');
    this.compiled = new Array<undefined>(table.length);
  }

  /**
   * The document at `fields[at.i]` (its shape's number, then its leaves), moving `at.i` past it.
   * @throws Error for a shape number not in the table or too few leaves (a damaged row)
   */
  documentAt(fields: unknown[], at: { i: number }): unknown {
    const id = fields[at.i++];
    if (id === 0) return null;
    const table = this.table as unknown[];
    const ok = typeof id === 'number' && Number.isInteger(id) && id >= 1 && id <= table.length;
    const shape = ok ? (this.compiled[id - 1] ??= compileShape(table[id - 1])) : undefined;
    if (shape === undefined || at.i + shape.width > fields.length) throw new Error(`damaged batch data: shape ${String(id)} of ${table.length}`);
    return buildDocument(shape.template, fields, at);
  }
}

/** The most checks one batch row holds: a read of one check decompresses its whole batch. */
export const BATCH_MAX_CHECKS = 100;

/**
 * Cut `checks` into the batches they are stored as: each holds checks of one UTC day (a batch is
 * packed and dropped with its day's partition) spanning less than {@link BATCH_SPAN_MS}, at most
 * {@link BATCH_MAX_CHECKS}; checks keep their order within each (by scheduled_at where a day's
 * checks had to be cut by span).
 * @returns per batch, the indexes into `checks` of its checks, in their order in the batch
 */
export function splitBatches(checks: Array<Pick<BatchCheck, 'scheduled_ms'>>, max = BATCH_MAX_CHECKS): number[][] {
  const days = new Map<number, number[]>();
  checks.forEach((c, i) => {
    const day = Math.floor(c.scheduled_ms / 86_400_000);
    const list = days.get(day);
    if (list) list.push(i);
    else days.set(day, [i]);
  });
  const out: number[][] = [];
  for (const idx of days.values()) {
    let lo = Infinity;
    let hi = -Infinity;
    for (const i of idx) {
      lo = Math.min(lo, checks[i]!.scheduled_ms);
      hi = Math.max(hi, checks[i]!.scheduled_ms);
    }
    const sorted = hi - lo < BATCH_SPAN_MS ? idx : [...idx].sort((a, b) => checks[a]!.scheduled_ms - checks[b]!.scheduled_ms || a - b);
    let cur: number[] = [];
    let first = 0;
    for (const i of sorted) {
      const ms = checks[i]!.scheduled_ms;
      if (cur.length > 0 && (cur.length >= max || Math.abs(ms - first) >= BATCH_SPAN_MS)) {
        out.push(cur);
        cur = [];
      }
      if (cur.length === 0) first = ms;
      cur.push(i);
    }
    if (cur.length > 0) out.push(cur);
  }
  return out;
}
