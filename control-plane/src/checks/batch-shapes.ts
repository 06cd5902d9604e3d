import { shapeOf } from './pack-columns.js';

/*
 * Documents (a check's output or assertions: any JSON value) split into a shape and its leaves, as
 * batch data format 2 stores them (checks/batch-codec.ts): the shape is the document with every
 * number written 0 and every string "" (keys, booleans, nulls and nesting kept), the leaves are its
 * numbers and strings in document order. The checks of a batch share a few shapes (a batch of
 * pings has one), so each key is written once a batch instead of once a check. The shape text is
 * the packed blocks' own (pack-columns.ts shapeOf).
 */

/** The shapes of one batch's documents, numbered 1, 2... in the order first seen. */
export class ShapeTable {
  private readonly ids = new Map<string, number>();
  // The templates of the shapes seen (index id - 1): a document that matches one is split without
  // writing its shape out (a batch of pings builds one shape text, not a hundred).
  private readonly templates: ShapeTemplate[] = [];
  // The two shapes matched last (0: none), tried first: a check's assertions and its output
  // alternate between two.
  private recent = [0, 0];

  /**
   * Append `doc` to `row`: its shape's number (0 for null or undefined: no document), then its
   * leaves in the order JSON.stringify and JSON.parse walk a value (own keys in property order,
   * array items in order; a key whose value is undefined left out, an undefined item written
   * null, as JSON does), the order {@link buildDocument} fills them back in.
   */
  append(doc: unknown, row: unknown[]): void {
    if (doc === null || doc === undefined) {
      row.push(0);
      return;
    }
    const at = row.length;
    row.push(0);
    for (const id of this.recent) {
      if (id === 0) continue;
      if (matches(this.templates[id - 1]!, doc, row)) {
        row[at] = id;
        return;
      }
      row.length = at + 1;
    }
    const shape = shapeOf(doc, row);
    let id = this.ids.get(shape);
    if (id === undefined) {
      this.ids.set(shape, id = this.ids.size + 1);
      this.templates.push(compileShape(JSON.parse(shape)).template);
    }
    row[at] = id;
    if (this.recent[0] !== id) this.recent = [id, this.recent[0]!];
  }

  /** The table as JSON text: an array of the shapes, shape n at index n - 1. */
  toJSON(): string {
    return `[${[...this.ids.keys()].join(',')}]`;
  }
}

/**
 * Whether `x` has the shape of `t` (the shape text it would get is the one `t` was compiled
 * from), its leaves appended to `leaves` as it goes (the caller cuts them off when it does not).
 */
function matches(t: ShapeTemplate, x: unknown, leaves: unknown[]): boolean {
  switch (t.kind) {
    case 'leaf':
      if (typeof x !== (t.string ? 'string' : 'number')) return false;
      leaves.push(x);
      return true;
    case 'constant': return x === t.value;
    case 'array':
      if (!Array.isArray(x) || x.length !== t.items.length) return false;
      for (let i = 0; i < x.length; i++) if (!matches(t.items[i]!, x[i], leaves)) return false;
      return true;
    case 'object': {
      if (x === null || typeof x !== 'object' || Array.isArray(x)) return false;
      const keys = Object.keys(x);
      if (keys.length !== t.keys.length) return false;
      for (let i = 0; i < keys.length; i++) {
        const v = (x as Record<string, unknown>)[keys[i]!];
        if (keys[i] !== t.keys[i] || v === undefined || !matches(t.items[i]!, v, leaves)) return false;
      }
      return true;
    }
  }
}

/** A shape ready to be filled: a leaf, a value kept as it is, an array or an object of templates. */
export type ShapeTemplate =
  | { kind: 'leaf'; string: boolean }
  | { kind: 'constant'; value: unknown }
  | { kind: 'array'; items: ShapeTemplate[] }
  | { kind: 'object'; keys: string[]; items: ShapeTemplate[] };

/** The template of a parsed shape and how many leaves it takes. */
export function compileShape(shape: unknown): { template: ShapeTemplate; width: number } {
  let width = 0;
  const walk = (x: unknown): ShapeTemplate => {
    if (typeof x === 'number' || typeof x === 'string') return width++, { kind: 'leaf', string: typeof x === 'string' };
    if (Array.isArray(x)) return { kind: 'array', items: x.map(walk) };
    if (x !== null && typeof x === 'object') {
      const keys = Object.keys(x);
      return { kind: 'object', keys, items: keys.map((k) => walk((x as Record<string, unknown>)[k])) };
    }
    return { kind: 'constant', value: x };
  };
  const template = walk(shape);
  return { template, width };
}

/**
 * The document of `template` with its leaves taken from `values` starting at `at.i` (moved past
 * them). A `__proto__` key stays an own key, as JSON.parse makes it.
 */
export function buildDocument(template: ShapeTemplate, values: unknown[], at: { i: number }): unknown {
  switch (template.kind) {
    case 'leaf': return values[at.i++];
    case 'constant': return template.value;
    case 'array': return template.items.map((t) => buildDocument(t, values, at));
    case 'object': {
      const out: Record<string, unknown> = {};
      template.keys.forEach((k, j) => {
        const v = buildDocument(template.items[j]!, values, at);
        if (k === '__proto__') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
        else out[k] = v;
      });
      return out;
    }
  }
}
