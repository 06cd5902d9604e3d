import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { CheckRow } from './history.db.js';

/*
 * One block of packed check history (check_blocks.data, migration 0099): an hour of one series'
 * checks stored column by column and compressed together with raw DEFLATE (RFC 1951, node's
 * zlib). The first byte names the format, so it can change later without making stored blocks
 * unreadable: 1 = the layout below.
 *
 * Inside the DEFLATE stream: the length of a binary part, the binary part, then text lines.
 * Binary (LEB128 varints; signed ones zigzag-coded): count; per check the scheduled_at step in ms
 * (from the hour for the first, from the previous check after: a steady interval repeats one
 * value); start offsets; durations; success bytes; the output's and the assertions' shape numbers
 * (0 = none, n = the n-th shape below); then the numeric columns below, in their order.
 * Text lines ('\n'-separated; a string is its JSON text, which never holds a raw newline): the
 * response time column; error classes and errors (JSON, null included); the output shapes and the
 * assertion shapes (their count, then each), each shape followed by its slots' columns, slot by
 * slot. A column whose values are all exact decimals is the line `#` or `$` and their decimals,
 * its values in the binary part as scaled integers or their differences (emitColumn); any other
 * column is one line per value.
 * A shape is the JSON document with every number written 0 and every string "" (keys, booleans
 * and nulls kept): the outputs of one series have one or a few shapes, so what is left per check
 * is its values, and each slot's values (all rtt_avg_ms of the hour, all status codes...) lie
 * side by side, where DEFLATE finds their repeats. Numbers are kept as JavaScript writes them
 * (shortest text that reads back the same double), so a decoded check equals the stored one.
 */

const FORMAT_V1 = 1;
const OPTIONS = { level: 9, memLevel: 9 } as const;

/** One check as a block holds it: what a checks row says (history.db.ts CheckRow), the output decoded (checks/output-codec.ts). */
export type PackedCheck = Omit<CheckRow, 'series_id' | 'stored_at' | 'output_z' | 'output' | 'assertions'> & {
  /** null when the row had none (control-plane checks). */
  assertions: unknown[] | null;
  /** The output (any JSON value); null: none. */
  output: unknown;
};

class Writer {
  private buf = Buffer.alloc(1024);
  private at = 0;
  uint(v: number): void {
    if (this.at + 10 > this.buf.length) {
      const next = Buffer.alloc(this.buf.length * 2);
      this.buf.copy(next);
      this.buf = next;
    }
    let x = v;
    while (x >= 0x80) {
      this.buf[this.at++] = (x % 0x80) | 0x80;
      x = Math.floor(x / 0x80);
    }
    this.buf[this.at++] = x;
  }
  int(v: number): void {
    this.uint(v >= 0 ? v * 2 : -v * 2 - 1);
  }
  /**
   * Signed integers, zigzag-coded, at a fixed width, as byte planes: first every value's highest
   * byte, then every value's next... (the high planes of similar values repeat: DEFLATE takes
   * them almost for nothing; the noisy low planes cost about their bits).
   */
  planes(xs: number[]): void {
    const zs = xs.map((v) => (v >= 0 ? v * 2 : -v * 2 - 1));
    let width = 1;
    while (zs.some((z) => z >= 256 ** width)) width++;
    this.uint(width);
    for (let b = width - 1; b >= 0; b--) for (const z of zs) this.uint8(Math.floor(z / 256 ** b) % 256);
  }
  private uint8(v: number): void {
    if (this.at + 1 > this.buf.length) {
      const next = Buffer.alloc(this.buf.length * 2);
      this.buf.copy(next);
      this.buf = next;
    }
    this.buf[this.at++] = v;
  }
  bytes(): Buffer {
    return this.buf.subarray(0, this.at);
  }
}

class Reader {
  at = 0;
  constructor(private readonly buf: Buffer) {}
  uint(): number {
    let v = 0;
    let scale = 1;
    for (;;) {
      if (this.at >= this.buf.length) throw new Error('damaged check block: it ends inside a number');
      const b = this.buf[this.at++]!;
      v += (b & 0x7f) * scale;
      if (b < 0x80) return v;
      scale *= 0x80;
    }
  }
  int(): number {
    return unzigzag(this.uint());
  }
  /** `n` integers written by Writer.planes. */
  planes(n: number): number[] {
    const width = this.uint();
    if (this.at + width * n > this.buf.length) throw new Error('damaged check block: it ends inside a column');
    const zs = new Array<number>(n).fill(0);
    for (let b = 0; b < width; b++) for (let i = 0; i < n; i++) zs[i] = zs[i]! * 256 + this.buf[this.at++]!;
    return zs.map(unzigzag);
  }
}

function unzigzag(z: number): number {
  return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
}

/** The shape of `v` as JSON text, its number and string leaves appended to `leaves` in document order. */
function shapeOf(v: unknown, leaves: Array<number | string>): string {
  if (typeof v === 'number') {
    leaves.push(v);
    return '0';
  }
  if (typeof v === 'string') {
    leaves.push(v);
    return '""';
  }
  if (Array.isArray(v)) return `[${v.map((x) => shapeOf(x, leaves)).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${shapeOf(x, leaves)}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

/** Fill the leaves of a parsed shape, in document order, from `next` (number or string as the shape says). */
function fill(shape: unknown, next: (kind: 'number' | 'string') => number | string): unknown {
  if (typeof shape === 'number') return next('number');
  if (typeof shape === 'string') return next('string');
  if (Array.isArray(shape)) return shape.map((x) => fill(x, next));
  if (shape !== null && typeof shape === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(shape)) Object.defineProperty(out, k, { value: fill(x, next), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return shape;
}

/** The decimals of `v` when it is exactly an integer of at most 2^50 over 10^decimals (0-6), else null. */
function decimalsOf(v: number): number | null {
  if (!Number.isFinite(v) || Object.is(v, -0)) return null;
  for (let d = 0; d <= 6; d++) {
    const x = Math.round(v * 10 ** d);
    if (Math.abs(x) < 2 ** 50 && x / 10 ** d === v) return d;
  }
  return null;
}

/**
 * Append one column: numbers that are all exact decimals (0-6 places) as the line `#` (or `$`)
 * and their decimals, then, in `bin`, each value times 10^decimals, zigzag-coded in byte planes
 * (Writer.planes): its difference from the one before after `#` (a steady column costs nothing),
 * itself after `$`; anything else as one text line each (a number as JavaScript writes it, a string as JSON, null
 * as an empty line).
 */
function emitColumn(values: Array<number | string | null>, lines: string[], bin: Writer): void {
  let d = values.length > 0 ? 0 : null;
  for (const v of values) {
    const dv = typeof v === 'number' ? decimalsOf(v) : null;
    d = dv === null || d === null ? null : Math.max(d, dv);
    if (d === null) break;
  }
  if (d === null) {
    for (const v of values) lines.push(v === null ? '' : typeof v === 'number' ? String(v) : JSON.stringify(v));
    return;
  }
  const xs = (values as number[]).map((v) => Math.round(v * 10 ** d!));
  // Differences when they are smaller (a steady or drifting column), the values themselves when
  // not (a noisy one: a difference spans twice the range).
  const size = (x: number) => Math.ceil(Math.log2(Math.abs(x) * 2 + 2) / 7);
  const delta = xs.reduce((n, x, i) => n + size(x - (i > 0 ? xs[i - 1]! : 0)), 0) <= xs.reduce((n, x) => n + size(x), 0);
  lines.push(`${delta ? '#' : '$'}${d}`);
  bin.planes(delta ? xs.map((x, i) => x - (i > 0 ? xs[i - 1]! : 0)) : xs);
}

/** Read back a column written by {@link emitColumn}: `n` values, `kind` telling numbers from strings in text lines. */
function readColumn(n: number, kind: 'number' | 'string' | 'nullable', take: () => string, bin: Reader): Array<number | string | null> {
  if (n === 0) return [];
  const head = take();
  if (head.startsWith('#') || head.startsWith('$')) {
    const scale = 10 ** Number(head.slice(1));
    let x = 0;
    return bin.planes(n).map((v) => (x = head[0] === '#' ? x + v : v) / scale);
  }
  const text = (t: string) => (kind === 'string' ? JSON.parse(t) as string : t === '' && kind === 'nullable' ? null : Number(t));
  return [text(head), ...Array.from({ length: n - 1 }, () => text(take()))];
}

/** Documents of one column (outputs or assertions), split into shape numbers, a shape table and slot columns. */
function splitDocuments(docs: unknown[]): { ids: number[]; emit: (lines: string[], bin: Writer) => void } {
  const table = new Map<string, { id: number; rows: Array<Array<number | string>> }>();
  const ids = docs.map((doc) => {
    if (doc === null || doc === undefined) return 0;
    const leaves: Array<number | string> = [];
    const shape = shapeOf(doc, leaves);
    let entry = table.get(shape);
    if (!entry) table.set(shape, entry = { id: table.size + 1, rows: [] });
    entry.rows.push(leaves);
    return entry.id;
  });
  return {
    ids,
    emit: (lines, bin) => {
      lines.push(String(table.size), ...table.keys());
      for (const { rows } of table.values()) {
        for (let slot = 0; slot < rows[0]!.length; slot++) emitColumn(rows.map((row) => row[slot]!), lines, bin);
      }
    },
  };
}

/**
 * The block of `checks`, one series' checks of the hour starting at `hour`, in scheduled_at order.
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
  emitColumn(checks.map((c) => c.response_ms), lines, w);
  for (const c of checks) lines.push(JSON.stringify(c.error_class));
  for (const c of checks) lines.push(JSON.stringify(c.error));
  outputs.emit(lines, w);
  assertions.emit(lines, w);
  const bin = w.bytes();
  const size = new Writer();
  size.uint(bin.length);
  const body = Buffer.concat([size.bytes(), bin, Buffer.from(lines.join('\n'), 'utf8')]);
  return Buffer.concat([Buffer.of(FORMAT_V1), deflateRawSync(body, OPTIONS)]);
}

/**
 * The checks of a block written by {@link encodeBlock} for `hour`, in scheduled_at order; with
 * `documents` false, their outputs and assertions are left null unread (statistics need only
 * times, success and response times).
 * @throws Error for an unknown format byte or a damaged block
 */
export function decodeBlock(hour: Date, data: Uint8Array, documents = true): PackedCheck[] {
  if (data[0] !== FORMAT_V1) throw new Error(`unknown check block format ${data[0]}`);
  const body = inflateRawSync(Buffer.from(data.buffer, data.byteOffset + 1, data.byteLength - 1));
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
  const response = readColumn(n, 'nullable', take, r) as Array<number | null>;
  const error_class = times.map(() => JSON.parse(take()) as string | null);
  const error = times.map(() => JSON.parse(take()) as string | null);
  const read = (ids: number[]): unknown[] => {
    const shapes = Array.from({ length: Number(take()) }, () => JSON.parse(take()) as unknown);
    const docs: unknown[] = ids.map(() => null);
    shapes.forEach((shape, s) => {
      const members = ids.flatMap((id, i) => (id === s + 1 ? [i] : []));
      const kinds: Array<'number' | 'string'> = [];
      fill(shape, (kind) => (kinds.push(kind), 0));
      const slots = kinds.map((kind) => readColumn(members.length, kind, take, r));
      members.forEach((i, m) => {
        let slot = 0;
        docs[i] = fill(shape, () => slots[slot++]![m]!);
      });
    });
    return docs;
  };
  const outputs = documents ? read(output_ids) : output_ids.map(() => null);
  const assertions = documents ? read(assertion_ids) : assertion_ids.map(() => null);
  return times.map((at, i) => ({
    scheduled_at: new Date(at), start_offset_ms: start[i]!, duration_ms: duration[i]!, response_ms: response[i]!, success: success[i]!,
    error_class: error_class[i]!, error: error[i]!, assertions: assertion_ids[i] === 0 ? null : assertions[i] as unknown[] | null, output: outputs[i],
  }));
}
