import type { z } from 'zod';

/**
 * One form control derived from a monitor config schema (shared-protocol's `MONITOR_CONFIGS`):
 * the form is read off the schema, never written out per type, so a field added to a type's
 * schema appears in the console without a change here.
 * - `enum`: a choice of `options`; `boolean`: a checkbox; `number`: a number input (`min`, `max`);
 * - `text`: a line of text; `scalar`: a number or a text (a status rule, a browser assertion's value);
 * - `list`: comma-separated strings; `pairs`: `Name: value` lines (a string-to-string record);
 * - `json`: any JSON value, typed as JSON (a JSON object record, an assertion's value);
 * - `object`: nested fields; `rows`: a list of objects, one row of `fields` each.
 * `fallback` is the schema's default (shown as the placeholder, or the initial choice).
 */
export type FieldSpec =
  | { kind: 'enum'; key: string; options: string[]; fallback?: unknown }
  | { kind: 'boolean'; key: string; fallback?: unknown }
  | { kind: 'number'; key: string; min?: number; max?: number; fallback?: unknown }
  | { kind: 'text' | 'scalar' | 'list' | 'pairs' | 'json'; key: string; fallback?: unknown }
  | { kind: 'object' | 'rows'; key: string; fields: FieldSpec[]; fallback?: unknown };

type Def = { type: string; innerType?: z.ZodType; defaultValue?: unknown; in?: z.ZodType; shape?: Record<string, z.ZodType>; entries?: Record<string, string>; element?: z.ZodType; valueType?: z.ZodType; options?: z.ZodType[]; getter?: () => z.ZodType };
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** The schema under optional/default/nullable/pipe wrappers, and the default found on the way. */
function unwrap(schema: z.ZodType): { inner: z.ZodType; fallback?: unknown } {
  let s = schema;
  let fallback: unknown;
  for (;;) {
    const d = defOf(s);
    if (d.type === 'default' || d.type === 'prefault') { if (fallback === undefined) fallback = typeof d.defaultValue === 'function' ? (d.defaultValue as () => unknown)() : d.defaultValue; s = d.innerType!; }
    else if (d.type === 'optional' || d.type === 'nullable' || d.type === 'readonly') s = d.innerType!;
    else if (d.type === 'pipe') s = d.in!;
    else if (d.type === 'lazy' && d.getter) s = d.getter();
    else return fallback === undefined ? { inner: s } : { inner: s, fallback };
  }
}

/** The object shape of a config schema (through refinements and transforms), or null. */
export function shapeOf(schema: z.ZodType): Record<string, z.ZodType> | null {
  const d = defOf(unwrap(schema).inner);
  return d.type === 'object' && d.shape ? d.shape : null;
}

/** The fields of a config schema's object shape, in the schema's order. */
export function fieldsOf(schema: z.ZodType): FieldSpec[] {
  const shape = shapeOf(schema);
  return shape ? Object.entries(shape).map(([key, s]) => fieldOf(key, s)) : [];
}

function fieldOf(key: string, schema: z.ZodType): FieldSpec {
  const { inner, fallback } = unwrap(schema);
  const at = fallback === undefined ? {} : { fallback };
  const d = defOf(inner);
  switch (d.type) {
    case 'enum': return { kind: 'enum', key, options: Object.values(d.entries ?? {}), ...at };
    case 'boolean': return { kind: 'boolean', key, ...at };
    case 'number': {
      const bounds = inner as unknown as { minValue: number | null; maxValue: number | null };
      const usable = (v: number | null): v is number => v !== null && Math.abs(v) < Number.MAX_SAFE_INTEGER;
      return { kind: 'number', key, ...(usable(bounds.minValue) ? { min: bounds.minValue } : {}), ...(usable(bounds.maxValue) ? { max: bounds.maxValue } : {}), ...at };
    }
    case 'string': return { kind: 'text', key, ...at };
    case 'union': return { kind: (d.options ?? []).some((o) => defOf(unwrap(o).inner).type === 'number') ? 'scalar' : 'text', key, ...at };
    case 'object': return { kind: 'object', key, fields: fieldsOf(inner), ...at };
    case 'array': {
      const element = unwrap(d.element!).inner;
      const kind = defOf(element).type;
      if (kind === 'object') return { kind: 'rows', key, fields: fieldsOf(element), ...at };
      if (kind === 'string' || kind === 'enum') return { kind: 'list', key, ...at };
      return { kind: 'json', key, ...at };
    }
    case 'record': return defOf(unwrap(d.valueType!).inner).type === 'string' ? { kind: 'pairs', key, ...at } : { kind: 'json', key, ...at };
    default: return { kind: 'json', key, ...at };
  }
}
