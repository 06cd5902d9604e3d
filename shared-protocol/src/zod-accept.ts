import type { z } from 'zod';

/**
 * A fast yes of a zod schema for values parsed from JSON: `accept(v)` is true only when
 * `schema.safeParse(v)` succeeds AND returns a value deep-equal to `v` itself (nothing stripped,
 * filled, coerced or rewritten), so the caller can use `v` as the parse's output. False means
 * "ask zod": the value may still be valid (an unknown key zod would strip, a wrapper this walk does
 * not know), and only zod's parse gives the output and the issues.
 *
 * Why: zod 4 builds a new payload object and issues array for every field it visits (about 10 kB
 * of garbage for one ping result) and a new output object for every object; on the node hub's
 * result path that was a third of the control plane's CPU per result (docs/benchmarks.md "Check
 * ingest"). This walk allocates nothing of its own for an accepted value (a refinement, zod's
 * `.refine`, still sets up an `addIssue` closure when it runs: about 0.7 kB a ping result).
 *
 * How it stays exactly zod's rule: every leaf (string, number, literal, enum, …) still runs zod's
 * own type parse and then zod's own checks (formats, lengths, ranges, refinements), in the order
 * zod's $ZodType runs them, on one reused payload, and every check of an object or array is zod's
 * own check object; the walk only decides the shapes (plain object with exactly the known keys,
 * array, null, absent optional key) by zod's documented rules. Any schema kind it does not know
 * (defaults, transforms, pipes, lazy, non-discriminated unions, coercion, catch) compiles to "ask
 * zod". Object keys may come in any order (JSON objects are unordered). A schema that holds itself
 * (an object's getter shape) is walked through the one it is compiling. shared-protocol's
 * zod-accept.test.ts checks the promise on every result type and on thousands of mutated values.
 */
export type Accept = (value: unknown) => boolean;

type Schema = z.core.$ZodType;
type Check = z.core.$ZodCheck;
interface Payload { value: unknown; issues: unknown[] }

const never: Accept = () => false;
const always: Accept = () => true;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const hasOwn = Object.prototype.hasOwnProperty;
/** Schema kinds zod parses by a type test and its checks alone: walked by {@link compileAccept}'s leaf. */
const LEAF_TYPES = new Set(['string', 'number', 'boolean', 'null', 'literal', 'enum']);

/** Compile `schema` into an {@link Accept} (once per schema: the walk is built here, not per call). */
export function compileAccept(schema: Schema): Accept {
  const ctx = { async: false } as z.core.ParseContext<z.core.$ZodIssue>;
  let scratch: Payload = { value: undefined, issues: [] };
  /** A failed leaf or check may have left fields on the payload: start over with a new one. */
  const fail = () => {
    scratch = { value: undefined, issues: [] };
    return false;
  };

  /**
   * `checks` run on the payload holding `v` as zod's runChecks runs them on a clean one (a check
   * with a `when` only where it says so): all pass and none rewrote the value.
   */
  const passes = (checks: Check[], v: unknown): boolean => {
    scratch.value = v;
    for (let i = 0; i < checks.length; i++) {
      const ch = checks[i]!;
      const when = ch._zod.def.when;
      if (when && !when(scratch as z.core.ParsePayload)) continue;
      const r = ch._zod.check(scratch as z.core.ParsePayload<never>);
      if (r !== undefined || scratch.issues.length > 0 || scratch.value !== v) return fail();
    }
    return true;
  };

  /**
   * A leaf as zod's run does it, on the reused payload: the type's own parse, then its checks, a
   * schema that is also a check (a string format) first, as zod's $ZodType sets them up. Run here
   * rather than through zod's run, whose loop allocated about 80 bytes a call.
   */
  const leaf = (s: Schema): Accept => {
    const zod = s._zod;
    const parse = zod.parse;
    const own = (zod.def.checks ?? []) as Check[];
    const checks = zod.traits.has('$ZodCheck') ? [s as unknown as Check, ...own] : [...own];
    return (v) => {
      scratch.value = v;
      const out = parse.call(zod, scratch as z.core.ParsePayload, ctx);
      if (out !== scratch || scratch.issues.length > 0 || scratch.value !== v) return fail();
      return checks.length === 0 || passes(checks, v);
    };
  };

  /** The own checks of an object, array or union (zod runs them after the shape). */
  const checked = (checks: Check[], shape: Accept): Accept => {
    if (checks.length === 0) return shape;
    return (v) => shape(v) && passes(checks, v);
  };

  // Each schema compiled once; one met again while it is being compiled (a recursive shape) is
  // called through its entry, which holds the finished walk by the time anything calls it.
  const compiled = new Map<Schema, Accept>();
  const compile = (s: Schema): Accept => {
    const known = compiled.get(s);
    if (known) return known;
    let walk: Accept = never;
    compiled.set(s, (v) => walk(v));
    walk = build(s);
    compiled.set(s, walk);
    return walk;
  };

  const build = (s: Schema): Accept => {
    const def = s._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
    const checks = (def.checks ?? []) as Check[];
    if (LEAF_TYPES.has(def.type)) return def.coerce ? never : leaf(s);
    // A composite that is also a check of itself (zod runs that first) is not walked here.
    if (s._zod.traits.has('$ZodCheck')) return never;
    switch (def.type) {
      case 'unknown': case 'any':
        return checks.length === 0 ? always : never;
      case 'optional': {
        if (checks.length > 0) return never;
        const inner = compile(def.innerType as Schema);
        return (v) => v === undefined || inner(v);
      }
      case 'nullable': {
        if (checks.length > 0) return never;
        const inner = compile(def.innerType as Schema);
        return (v) => v === null || inner(v);
      }
      case 'array': {
        const element = compile(def.element as Schema);
        return checked(checks, (v) => {
          if (!Array.isArray(v)) return false;
          for (let i = 0; i < v.length; i++) if (!element(v[i])) return false;
          return true;
        });
      }
      case 'object':
        return checked(checks, objectOf(def));
      case 'record':
        return checked(checks, recordOf(def));
      case 'union':
        return checked(checks, unionOf(def));
      default:
        return never;
    }
  };

  /** Exactly the shape's keys (an absent key only where the schema is optional): zod strips unknown keys or refuses them. */
  const objectOf = (def: Record<string, unknown>): Accept => {
    // A strict object's catchall refuses every unknown key: the same rule as stripping here.
    const catchall = def.catchall as Schema | undefined;
    if (catchall !== undefined && (catchall._zod.def as { type: string }).type !== 'never') return never;
    const shape = def.shape as Record<string, Schema>;
    const keys = Object.keys(shape);
    const fields = keys.map((k) => compile(shape[k]!));
    const optional = keys.map((k) => (shape[k]!._zod.def as { type: string }).type === 'optional');
    return (v) => {
      if (!isObject(v)) return false;
      let present = 0;
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i]!;
        if (hasOwn.call(v, k)) {
          present++;
          if (!fields[i]!(v[k])) return false;
        } else if (!optional[i]) return false;
      }
      let own = 0;
      for (const k in v) if (hasOwn.call(v, k)) own++;
      return own === present;
    };
  };

  /** String keys (zod's record leaves `__proto__` out of its output: such a value asks zod). */
  const recordOf = (def: Record<string, unknown>): Accept => {
    const keyType = def.keyType as Schema;
    if ((keyType._zod.def as { type: string }).type !== 'string') return never;
    const key = leaf(keyType);
    const value = compile(def.valueType as Schema);
    return (v) => {
      if (!isObject(v)) return false;
      for (const k in v) {
        if (!hasOwn.call(v, k)) continue;
        if (k === '__proto__' || !key(k) || !value(v[k])) return false;
      }
      return true;
    };
  };

  /** A discriminated union: the option whose literal discriminator the value carries. */
  const unionOf = (def: Record<string, unknown>): Accept => {
    const discriminator = def.discriminator as string | undefined;
    if (typeof discriminator !== 'string') return never;
    const options = new Map<unknown, Accept>();
    for (const option of def.options as Schema[]) {
      const o = option._zod.def as { type: string; shape?: Record<string, Schema> };
      const tag = o.type === 'object' ? o.shape?.[discriminator] : undefined;
      const tagDef = tag?._zod.def as { type: string; values?: unknown[] } | undefined;
      const values = tagDef?.type === 'literal' ? tagDef.values : undefined;
      if (!values) return never;
      const accept = compile(option);
      for (const x of values) {
        if (options.has(x)) return never;
        options.set(x, accept);
      }
    }
    return (v) => {
      if (!isObject(v)) return false;
      const accept = options.get(v[discriminator]);
      return accept !== undefined && accept(v);
    };
  };

  return compile(schema);
}
