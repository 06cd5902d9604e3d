import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { CheckRow } from './history.db.js';
import { emitColumn, fill, leavesOf, readColumn, Reader, shapeOf, Writer } from './pack-columns.js';
import { BLOCK_DICTIONARY_V2 } from './pack-dictionary.js';
import { planSlots } from './pack-rules.js';

/*
 * One block of packed check history (check_blocks.data, migration 0099): an hour of one series'
 * checks stored column by column and compressed together with raw DEFLATE (RFC 1951, node's
 * zlib). The first byte names the format, so it can change without making stored blocks
 * unreadable: 1 = the first layout (still read), 2 = the layout written now. Columns and shapes:
 * checks/pack-columns.ts; predicted slots: checks/pack-rules.ts.
 *
 * Inside the DEFLATE stream (format 2: primed with the dictionary of checks/pack-dictionary.ts):
 * the length of a binary part, the binary part, then text lines. Binary (LEB128 varints; signed
 * ones zigzag-coded): count; per check the scheduled_at step in ms (from the hour for the first,
 * from the previous check after: a steady interval repeats one value); start offsets; durations;
 * success bytes; the output's and the assertions' shape numbers (0 = none, n = the n-th shape
 * below); then the numeric columns below, in their order. Text lines ('\n'-separated; a string is
 * its JSON text, which never holds a raw newline): error classes and errors (JSON, null
 * included); the output shapes (their count, then each), each shape followed by its slots'
 * columns; the response time column; the assertion shapes and their columns likewise. A column
 * whose values are all exact decimals is the line `#`, `$` or `%` and their decimals, its values
 * in the binary part as scaled integers, their steps, or their differences from a prediction
 * (pack-columns.ts emitColumn); any other column is one line per value.
 * A shape is the JSON document with every number written 0 and every string "" (keys, booleans
 * and nulls kept): the outputs of one series have one or a few shapes, so what is left per check
 * is its values, and each slot's values (all rtt_ms of the hour's first packets, all status
 * codes...) lie side by side, where DEFLATE finds their repeats. A shape's slots are stored in
 * the order of pack-rules.ts planSlots: those no rule predicts first (document order), then the
 * predicted ones (a ping's later rtt_ms from the one before, rtt_min/max/avg/stddev_ms from the
 * rtt_ms), each stored as `%` when its differences from the prediction are the smallest form.
 * The response time, a copy of an output field for every node check type (checks/traits.ts), is
 * predicted by the output slot that equals it most often in the block (one per shape: the line
 * before its column, slot numbers separated by spaces, -1 for none). A prediction only has to be
 * computed alike when reading, never to be right: the stored difference is added back. Numbers
 * are kept as JavaScript writes them (shortest text that reads back the same double; -0 as `-0`),
 * so a decoded check equals the stored one.
 * Format 1 differs in: no dictionary; the response time column first among the text lines
 * (before the errors); slots in document order, never `%`; `#` or `$` chosen on 7-bit groups.
 */

const FORMAT_V1 = 1;
const FORMAT_V2 = 2;
const OPTIONS = { level: 9, memLevel: 9, dictionary: BLOCK_DICTIONARY_V2 } as const;

/** One check as a block holds it: what a checks row says (history.db.ts CheckRow), the output decoded (checks/output-codec.ts). */
export type PackedCheck = Omit<CheckRow, 'series_id' | 'stored_at' | 'output_z' | 'output' | 'assertions'> & {
  /** null when the row had none (control-plane checks). */
  assertions: unknown[] | null;
  /** The output (any JSON value); null: none. */
  output: unknown;
};

type Leaf = number | string | null;

/** Documents of one column (outputs or assertions), split into shape numbers and a shape table holding each one's leaves. */
function splitDocuments(docs: unknown[]): { ids: number[]; shapes: Map<string, { id: number; rows: Leaf[][] }> } {
  const shapes = new Map<string, { id: number; rows: Leaf[][] }>();
  const ids = docs.map((doc) => {
    if (doc === null || doc === undefined) return 0;
    const leaves: Leaf[] = [];
    const shape = shapeOf(doc, leaves);
    let entry = shapes.get(shape);
    if (!entry) shapes.set(shape, entry = { id: shapes.size + 1, rows: [] });
    entry.rows.push(leaves);
    return entry.id;
  });
  return { ids, shapes };
}

/** Append the shape table and each shape's slot columns in the order of its plan (format 2). */
function emitDocuments(shapes: Map<string, { rows: Leaf[][] }>, lines: string[], bin: Writer): void {
  lines.push(String(shapes.size), ...shapes.keys());
  for (const [shape, { rows }] of shapes) {
    const { paths, kinds } = leavesOf(JSON.parse(shape));
    const plan = planSlots(paths, kinds, true);
    for (const s of plan.order) {
      const predict = plan.predictors[s];
      emitColumn(rows.map((row) => row[s]!), lines, bin, predict ? rows.map(predict) : []);
    }
  }
}

/** Per output shape (table order), the number slot that equals the response time most often in `checks`, -1 for none. */
function responseSlots(checks: PackedCheck[], ids: number[], shapes: Map<string, { rows: Leaf[][] }>): number[] {
  return [...shapes.values()].map(({ rows }, t) => {
    const responses = checks.filter((_, i) => ids[i] === t + 1).map((c) => c.response_ms);
    let best = -1;
    let hits = 0;
    for (let s = 0; s < (rows[0]?.length ?? 0); s++) {
      const n = rows.reduce((k, row, m) => k + (typeof row[s] === 'number' && row[s] === responses[m] ? 1 : 0), 0);
      if (n > hits) [best, hits] = [s, n];
    }
    return best;
  });
}

/** The prediction of each check's response time: its output's leaf at its shape's slot. */
function responsePredictions(ids: number[], leaves: Array<Leaf[] | null>, slots: number[]): Array<number | null> {
  return ids.map((id, i) => {
    const v = id === 0 ? null : leaves[i]![slots[id - 1] ?? -1];
    return typeof v === 'number' ? v : null;
  });
}

/**
 * The block of `checks`, one series' checks of the hour starting at `hour`, in scheduled_at
 * order, in format 2.
 * @throws Error when a check lies outside the hour or the order is broken (the caller's bug)
 */
export function encodeBlock(hour: Date, checks: PackedCheck[]): Buffer {
  const w = new Writer();
  const lines: string[] = [];
  w.uint(checks.length);
  let prev = hour.getTime();
  for (const c of checks) {
    const at = c.scheduled_at.getTime();
    if (at < prev || at >= hour.getTime() + 3_600_000) throw new Error(`check at ${c.scheduled_at.toISOString()} out of order or outside the hour ${hour.toISOString()}`);
    w.uint(at - prev);
    prev = at;
  }
  for (const c of checks) w.int(c.start_offset_ms);
  for (const c of checks) w.int(c.duration_ms);
  for (const c of checks) w.uint(c.success ? 1 : 0);
  const outputs = splitDocuments(checks.map((c) => c.output));
  const assertions = splitDocuments(checks.map((c) => c.assertions));
  for (const id of outputs.ids) w.uint(id);
  for (const id of assertions.ids) w.uint(id);
  for (const c of checks) lines.push(JSON.stringify(c.error_class));
  for (const c of checks) lines.push(JSON.stringify(c.error));
  emitDocuments(outputs.shapes, lines, w);
  const slots = responseSlots(checks, outputs.ids, outputs.shapes);
  lines.push(slots.join(' '));
  const rows = [...outputs.shapes.values()].map((s) => s.rows.values());
  const leaves = outputs.ids.map((id) => (id === 0 ? null : rows[id - 1]!.next().value as Leaf[]));
  emitColumn(checks.map((c) => c.response_ms), lines, w, responsePredictions(outputs.ids, leaves, slots));
  emitDocuments(assertions.shapes, lines, w);
  const bin = w.bytes();
  const size = new Writer();
  size.uint(bin.length);
  const body = Buffer.concat([size.bytes(), bin, Buffer.from(lines.join('\n'), 'utf8')]);
  return Buffer.concat([Buffer.of(FORMAT_V2), deflateRawSync(body, OPTIONS)]);
}

/**
 * The documents of one column (shape numbers `ids`) read back: the shape table, then each
 * shape's slot columns (in its plan's order: format 2 predicts, format 1 does not). `build`
 * false leaves the documents null (their leaves are still read).
 */
function readDocuments(ids: number[], v2: boolean, build: boolean, take: () => string, r: Reader): { docs: unknown[]; leaves: Array<Leaf[] | null> } {
  const shapes = Array.from({ length: Number(take()) }, () => JSON.parse(take()) as unknown);
  const docs: unknown[] = ids.map(() => null);
  const leaves: Array<Leaf[] | null> = ids.map(() => null);
  shapes.forEach((shape, t) => {
    const members = ids.flatMap((id, i) => (id === t + 1 ? [i] : []));
    const { paths, kinds } = leavesOf(shape);
    const plan = planSlots(paths, kinds, v2);
    const rows: Leaf[][] = members.map(() => new Array<Leaf>(paths.length));
    for (const s of plan.order) {
      const predict = plan.predictors[s];
      const column = readColumn(members.length, kinds[s]!, take, r, predict ? rows.map(predict) : []);
      rows.forEach((row, m) => (row[s] = column[m]!));
    }
    members.forEach((i, m) => {
      leaves[i] = rows[m]!;
      let slot = 0;
      if (build) docs[i] = fill(shape, () => rows[m]![slot++]!);
    });
  });
  return { docs, leaves };
}

/**
 * The checks of a block written by {@link encodeBlock} for `hour` (format 2, or format 1 as the
 * first version wrote it), in scheduled_at order; with `documents` false, their outputs and
 * assertions are left null (statistics need only times, success and response times).
 * @throws Error for an unknown format byte or a damaged block
 */
export function decodeBlock(hour: Date, data: Uint8Array, documents = true): PackedCheck[] {
  const format = data[0];
  if (format !== FORMAT_V1 && format !== FORMAT_V2) throw new Error(`unknown check block format ${format}`);
  const v2 = format === FORMAT_V2;
  const body = inflateRawSync(Buffer.from(data.buffer, data.byteOffset + 1, data.byteLength - 1), v2 ? { dictionary: BLOCK_DICTIONARY_V2 } : {});
  const head = new Reader(body);
  const bin_length = head.uint();
  const r = new Reader(body.subarray(head.at, head.at + bin_length));
  const n = r.uint();
  const times: number[] = [];
  let prev = hour.getTime();
  for (let i = 0; i < n; i++) times.push(prev += r.uint());
  const start = times.map(() => r.int());
  const duration = times.map(() => r.int());
  const success = times.map(() => r.uint() === 1);
  const output_ids = times.map(() => r.uint());
  const assertion_ids = times.map(() => r.uint());
  const lines = body.subarray(head.at + bin_length).toString('utf8').split('\n');
  let line = 0;
  const take = () => {
    if (line >= lines.length) throw new Error('damaged check block: too few values');
    return lines[line++]!;
  };
  let response = v2 ? [] : readColumn(n, 'nullable', take, r) as Array<number | null>;
  const error_class = times.map(() => JSON.parse(take()) as string | null);
  const error = times.map(() => JSON.parse(take()) as string | null);
  const none = { docs: times.map(() => null), leaves: [] };
  const outputs = v2 || documents ? readDocuments(output_ids, v2, documents, take, r) : none;
  if (v2) {
    const slots = take().split(' ').map(Number);
    response = readColumn(n, 'nullable', take, r, responsePredictions(output_ids, outputs.leaves, slots)) as Array<number | null>;
  }
  const assertions = documents ? readDocuments(assertion_ids, v2, true, take, r) : none;
  return times.map((at, i) => ({
    scheduled_at: new Date(at), start_offset_ms: start[i]!, duration_ms: duration[i]!, response_ms: response[i]!, success: success[i]!,
    error_class: error_class[i]!, error: error[i]!, assertions: assertion_ids[i] === 0 ? null : assertions.docs[i] as unknown[] | null, output: outputs.docs[i],
  }));
}
