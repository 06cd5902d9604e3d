/** What the settings table says of one zod field: its type in words and its default. */
export interface FieldShape {
  /** `integer 1-3600`, `string`, `URL`, `one of: open, invite, closed`, `list of CIDRs`… */
  type: string;
  /** The default as written in the environment (`60`, `true`, `a,b`), or undefined when unset by default. */
  default_value: unknown;
  /** True when the field has a default. */
  has_default: boolean;
}

type Def = { type: string; innerType?: Zod; in?: Zod; defaultValue?: unknown; entries?: Record<string, unknown>; element?: Zod; options?: Zod[] };
type Zod = { def: Def; format?: string | null; isInt?: boolean; minValue?: number | null; maxValue?: number | null; minLength?: number | null };

/** Number bounds that are only the safe-integer limits say nothing: left out. */
const HUGE = Number.MAX_SAFE_INTEGER;

/** A range suffix: ` 1-3600`, ` ≥ 1`, '' without bounds. */
function range(min: number | null | undefined, max: number | null | undefined): string {
  const lo = min !== null && min !== undefined && Math.abs(min) < HUGE ? min : undefined;
  const hi = max !== null && max !== undefined && Math.abs(max) < HUGE ? max : undefined;
  if (lo !== undefined && hi !== undefined) return ` ${lo}-${hi}`;
  if (lo !== undefined) return ` ≥ ${lo}`;
  if (hi !== undefined) return ` ≤ ${hi}`;
  return '';
}

/** The type of an unwrapped zod schema in words. */
function typeOf(s: Zod): string {
  switch (s.def.type) {
    case 'number': return `${s.isInt ? 'integer' : 'number'}${range(s.minValue, s.maxValue)}`;
    case 'boolean': return 'boolean';
    case 'enum': return `one of: ${Object.keys(s.def.entries ?? {}).join(', ')}`;
    case 'array': return `comma list of ${plural(typeOf(unwrap(s.def.element!).inner))}`;
    case 'union': return (s.def.options ?? []).some((o) => o.def.type === 'boolean') ? 'boolean' : (s.def.options ?? []).map((o) => typeOf(unwrap(o).inner)).join(' or ');
    case 'string':
      if (s.format === 'url') return 'URL';
      if (s.format === 'email') return 'e-mail address';
      return `string${s.minLength ? ` (≥ ${s.minLength} chars)` : ''}`;
    default: return s.def.type;
  }
}

function plural(type: string): string {
  if (type.startsWith('integer')) return type.replace('integer', 'integers');
  if (type.startsWith('string')) return type.replace('string', 'strings');
  if (type === 'e-mail address') return 'e-mail addresses';
  return type;
}

/** Peel defaults, optionals and pipes (transforms) off a schema. */
function unwrap(schema: Zod): { inner: Zod; has_default: boolean; default_value: unknown } {
  let s = schema;
  let has_default = false;
  let default_value: unknown;
  for (;;) {
    if (s.def.type === 'default') {
      if (!has_default) { has_default = true; default_value = s.def.defaultValue; }
      s = s.def.innerType!;
    } else if (s.def.type === 'optional' || s.def.type === 'nullable' || s.def.type === 'readonly') {
      s = s.def.innerType!;
    } else if (s.def.type === 'pipe') {
      s = s.def.in!;
    } else {
      return { inner: s, has_default, default_value };
    }
  }
}

/** Describe one field of a configuration schema (zod 4 definitions read through `def`). */
export function describeField(schema: unknown): FieldShape {
  const { inner, has_default, default_value } = unwrap(schema as Zod);
  return { type: typeOf(inner), has_default, default_value };
}
