import { AS_CODE_KINDS, type AsCodeKind } from './format.js';
import type { Desired } from './desired.js';
import type { AccountState, Existing } from './state.js';

/** One field that differs: its dotted `path`, the value now (`before`, undefined when absent) and the value wanted (`after`). */
export interface FieldChange {
  path: string;
  before: unknown;
  after: unknown;
}

/**
 * What apply will do to one resource. `update` changes fields and/or the mark (`mark_only` when
 * only the mark changes: a resource made in the console now named by a file, or moved to another
 * file); `delete` only comes from `--prune`.
 */
export interface ResourceChange {
  action: 'create' | 'update' | 'delete';
  kind: AsCodeKind;
  name: string;
  source_file: string;
  existing: Existing | null;
  desired: Desired | null;
  fields: FieldChange[];
  mark_only: boolean;
}

/** The changes in apply order: creates and updates by kind (groups, channels, monitors, policies), then deletes in reverse. */
export interface Plan {
  changes: ResourceChange[];
  summary: { create: number; update: number; delete: number };
}

function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x) => (x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : 1))) : x));
}

/** The differing leaves of two values (objects compared key by key; arrays and scalars whole). */
export function diffValues(path: string, before: unknown, after: unknown, out: FieldChange[] = []): FieldChange[] {
  const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
  // An object appearing or going away shows leaf by leaf too (`+ config.url: …`).
  const b = before === undefined && isObj(after) ? {} : before;
  const a = after === undefined && isObj(before) ? {} : after;
  if (isObj(b) && isObj(a)) {
    for (const k of [...new Set([...Object.keys(b), ...Object.keys(a)])].sort()) diffValues(path ? `${path}.${k}` : k, b[k], a[k], out);
  } else if (canonical(before) !== canonical(after)) {
    out.push({ path, before, after });
  }
  return out;
}

/**
 * Compare the desired resources with the account. With `prune`, resources marked as applied from
 * one of `files` that no file names any more are deleted; nothing unmarked, and nothing marked
 * from another file, is ever deleted (docs/api/as-code.md "Prune").
 */
export function makePlan(desired: Desired[], state: AccountState, opts: { prune: boolean; files: string[] }): Plan {
  const changes: ResourceChange[] = [];
  for (const kind of AS_CODE_KINDS) {
    for (const d of desired.filter((x) => x.kind === kind)) {
      const existing = state[kind].get(d.name) ?? null;
      if (!existing) {
        changes.push({ action: 'create', kind, name: d.name, source_file: d.source_file, existing: null, desired: d, fields: diffValues('', {}, d.view), mark_only: false });
        continue;
      }
      const before = Object.fromEntries(d.compare.map((k) => [k, existing.view[k]]));
      const fields = diffValues('', before, d.view);
      const markStale = existing.mark?.source_file !== d.source_file;
      if (fields.length || markStale) changes.push({ action: 'update', kind, name: d.name, source_file: d.source_file, existing, desired: d, fields, mark_only: fields.length === 0 });
    }
  }
  if (opts.prune) {
    const named = new Set(desired.map((d) => `${d.kind}\0${d.name}`));
    for (const kind of [...AS_CODE_KINDS].reverse()) {
      for (const e of state[kind].values()) {
        if (!e.mark || !opts.files.includes(e.mark.source_file) || named.has(`${kind}\0${e.name}`)) continue;
        changes.push({ action: 'delete', kind, name: e.name, source_file: e.mark.source_file, existing: e, desired: null, fields: diffValues('', e.view, {}), mark_only: false });
      }
    }
  }
  return {
    changes,
    summary: {
      create: changes.filter((c) => c.action === 'create').length,
      update: changes.filter((c) => c.action === 'update').length,
      delete: changes.filter((c) => c.action === 'delete').length,
    },
  };
}

/** Whether a plan changes anything (`vantage plan` exits 2 then). */
export function hasChanges(plan: Plan): boolean {
  return plan.changes.length > 0;
}
