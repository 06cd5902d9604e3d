/*
 * The column primitives of packed check blocks (checks/pack-codec.ts): varints, byte planes,
 * document shapes and number columns. Shared by every block format: the readers take whatever
 * any format's writer wrote (format 1 never wrote `%` columns or width-0 planes).
 */

/** A growing buffer of LEB128 varints (signed ones zigzag-coded) and byte planes. */
export class Writer {
  private buf = Buffer.alloc(1024);
  private at = 0;
  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const next = Buffer.alloc(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(next);
    this.buf = next;
  }
  uint(v: number): void {
    this.room(10);
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
   * Signed integers (|x| < 2^51), zigzag-coded, at a fixed width, as byte planes: first every
   * value's highest byte, then every value's next... (the high planes of similar values repeat:
   * DEFLATE takes them almost for nothing; the noisy low planes cost about their bits). Width 0,
   * no plane at all, when every value is 0 (a slot its rule predicts exactly).
   */
  planes(xs: number[]): void {
    const zs = xs.map((v) => (v >= 0 ? v * 2 : -v * 2 - 1));
    let width = 0;
    while (zs.some((z) => z >= 256 ** width)) width++;
    this.uint(width);
    this.room(width * zs.length);
    for (let b = width - 1; b >= 0; b--) for (const z of zs) this.buf[this.at++] = Math.floor(z / 256 ** b) % 256;
  }
  bytes(): Buffer {
    return this.buf.subarray(0, this.at);
  }
}

/** Reads what a {@link Writer} wrote. @throws Error when the bytes end early (a damaged block) */
export class Reader {
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

// Object keys as JSON text with their colon, kept for the process (a few hundred distinct keys in practice; bounded).
const quotedKeys = new Map<string, string>();

/**
 * The shape of `v` as JSON text (every number written 0, every string ""; keys, booleans, nulls
 * and nesting kept), its number and string leaves appended to `leaves` in document order: the
 * order JSON.stringify and JSON.parse walk a value (own keys in property order, array items in
 * order; a key whose value is undefined left out, an undefined item written null, as JSON does).
 * Hand-written string building: a third of JSON.stringify with a replacer's time (0.6 µs a ping
 * output against 1.7), which ingest pays per check (checks/batch-shapes.ts).
 */
export function shapeOf(v: unknown, leaves: unknown[]): string {
  if (typeof v === 'number') return leaves.push(v), '0';
  if (typeof v === 'string') return leaves.push(v), '""';
  if (v === null || typeof v !== 'object') return v === undefined ? 'null' : JSON.stringify(v);
  if (Array.isArray(v)) {
    let s = '[';
    for (let i = 0; i < v.length; i++) s += (i === 0 ? '' : ',') + shapeOf(v[i], leaves);
    return s + ']';
  }
  let s = '{';
  for (const k of Object.keys(v)) {
    const x = (v as Record<string, unknown>)[k];
    if (x === undefined) continue;
    let q = quotedKeys.get(k);
    if (q === undefined) {
      q = `${JSON.stringify(k)}:`;
      if (quotedKeys.size < 10_000) quotedKeys.set(k, q);
    }
    s += (s.length === 1 ? '' : ',') + q + shapeOf(x, leaves);
  }
  return s + '}';
}

/** Fill the leaves of a parsed shape, in document order, from `next` (number or string as the shape says). */
export function fill(shape: unknown, next: (kind: 'number' | 'string') => number | string): unknown {
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

/** The leaves of a parsed shape in document order: each one's kind and path (its keys and array indices from the root). */
export function leavesOf(shape: unknown, path: Array<string | number> = [], out: { paths: Array<Array<string | number>>; kinds: Array<'number' | 'string'> } = { paths: [], kinds: [] }) {
  if (typeof shape === 'number' || typeof shape === 'string') {
    out.paths.push(path);
    out.kinds.push(typeof shape === 'number' ? 'number' : 'string');
  } else if (Array.isArray(shape)) {
    shape.forEach((x, i) => leavesOf(x, [...path, i], out));
  } else if (shape !== null && typeof shape === 'object') {
    for (const [k, x] of Object.entries(shape)) leavesOf(x, [...path, k], out);
  }
  return out;
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

/** `prediction` as an integer count of 10^-d, 0 when there is none or it is out of the exact range. */
function scaled(prediction: number | null | undefined, d: number): number {
  if (typeof prediction !== 'number' || !Number.isFinite(prediction)) return 0;
  const x = Math.round(prediction * 10 ** d);
  return Math.abs(x) < 2 ** 50 ? x : 0;
}

/** About how many bits zigzag-coded integers cost in byte planes once DEFLATE has taken the steady high bits. */
const bits = (xs: number[]) => xs.reduce((n, x) => n + Math.log2(Math.abs(x) * 2 + 1), 0);

/**
 * Append one column: numbers that are all exact decimals (0-6 places) as the line `#`, `$` or
 * `%` and their decimals, then, in `bin`, each value times 10^decimals, zigzag-coded in byte
 * planes (Writer.planes): its difference from the one before after `#` (a steady column costs
 * nothing), itself after `$`, its difference from its `predictions` entry (scaled the same way,
 * 0 for a null or missing one) after `%`: whichever costs the fewest bits. Anything else as one
 * text line each (a number as JavaScript writes it, -0 as `-0`, a string as JSON, null as an
 * empty line).
 */
export function emitColumn(values: Array<number | string | null>, lines: string[], bin: Writer, predictions: Array<number | null> = []): void {
  let d = values.length > 0 ? 0 : null;
  for (const v of values) {
    const dv = typeof v === 'number' ? decimalsOf(v) : null;
    d = dv === null || d === null ? null : Math.max(d, dv);
    if (d === null) break;
  }
  // Every scaled value under 2^50 and exact at the column's decimals, so steps and differences
  // stay exact integers (2^50 - 1 alone has 0 decimals; at 3 places it is past 2^50).
  const xs = d === null ? [] : (values as number[]).map((v) => Math.round(v * 10 ** d!));
  if (d === null || xs.some((x, i) => !(Math.abs(x) < 2 ** 50 && x / 10 ** d! === values[i]))) {
    for (const v of values) lines.push(v === null ? '' : typeof v === 'number' ? (Object.is(v, -0) ? '-0' : String(v)) : JSON.stringify(v));
    return;
  }
  const forms = [xs.map((x, i) => x - (i > 0 ? xs[i - 1]! : 0)), xs];
  if (predictions.length > 0) forms.push(xs.map((x, i) => x - scaled(predictions[i], d)));
  const costs = forms.map(bits);
  const best = costs.indexOf(Math.min(...costs));
  lines.push(`${'#$%'[best]}${d}`);
  bin.planes(forms[best]!);
}

/** Read back a column written by {@link emitColumn}: `n` values, `kind` telling numbers from strings in text lines, `predictions` the ones it was written with. */
export function readColumn(n: number, kind: 'number' | 'string' | 'nullable', take: () => string, bin: Reader, predictions: Array<number | null> = []): Array<number | string | null> {
  if (n === 0) return [];
  const head = take();
  const mode = head[0];
  if (mode === '#' || mode === '$' || mode === '%') {
    const d = Number(head.slice(1));
    const scale = 10 ** d;
    const xs = bin.planes(n);
    let x = 0;
    return xs.map((v, i) => (x = mode === '#' ? x + v : mode === '$' ? v : v + scaled(predictions[i], d)) / scale);
  }
  const text = (t: string) => (kind === 'string' ? JSON.parse(t) as string : t === '' && kind === 'nullable' ? null : Number(t));
  return [text(head), ...Array.from({ length: n - 1 }, () => text(take()))];
}
