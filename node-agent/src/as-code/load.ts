import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { fieldIssues } from '@vantage/shared-protocol';
import { AS_CODE_KINDS, KIND_SECTION, SPEC_SCHEMAS, type AsCodeKind } from './format.js';

/** One resource read from a file: its kind, stable name, the file it came from and its parsed spec. */
export interface Declared<T = unknown> {
  kind: AsCodeKind;
  name: string;
  source_file: string;
  spec: T;
}

/** A problem with one resource (or with a whole file when `kind` and `name` are null). */
export interface AsCodeIssue {
  source_file: string;
  kind: AsCodeKind | null;
  name: string | null;
  path: string;
  message: string;
}

/** The resources declared by a set of files, and every issue found reading them. */
export interface LoadedFiles {
  files: string[];
  resources: Declared[];
  issues: AsCodeIssue[];
}

const TOP_KEYS = new Set(['version', ...Object.values(KIND_SECTION)]);

/**
 * Parse one file's text (YAML 1.2, so JSON too; anchors, aliases and `<<` merge keys work) into
 * its resources. Each resource is checked on its own with its kind's spec schema (format.ts), so
 * one bad resource is reported by name and path while the others still parse.
 */
export function parseFileText(source_file: string, text: string): { resources: Declared[]; issues: AsCodeIssue[] } {
  const issues: AsCodeIssue[] = [];
  const fileIssue = (path: string, message: string) => issues.push({ source_file, kind: null, name: null, path, message });
  let doc: unknown;
  try {
    doc = parseYaml(text, { merge: true, maxAliasCount: 10_000, prettyErrors: false });
  } catch (err) {
    fileIssue('', `not valid YAML or JSON: ${(err as Error).message}`);
    return { resources: [], issues };
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) {
    fileIssue('', 'must be a mapping with version: 1');
    return { resources: [], issues };
  }
  const root = doc as Record<string, unknown>;
  if (root.version !== 1) fileIssue('version', 'must be 1');
  // Keys starting with x- or . hold anchors for repetition (YAML has no other place for them).
  for (const key of Object.keys(root)) if (!TOP_KEYS.has(key) && !/^(x-|\.)/.test(key)) fileIssue(key, 'unknown key');
  const resources: Declared[] = [];
  for (const kind of AS_CODE_KINDS) {
    const section = root[KIND_SECTION[kind]];
    if (section === undefined || section === null) continue;
    if (typeof section !== 'object' || Array.isArray(section)) {
      fileIssue(KIND_SECTION[kind], 'must be a mapping of name to resource');
      continue;
    }
    for (const [name, raw] of Object.entries(section as Record<string, unknown>)) {
      const where = `${KIND_SECTION[kind]}.${name}`;
      if (name.trim() !== name || name.length === 0 || name.length > 200) {
        issues.push({ source_file, kind, name, path: where, message: 'a name is 1-200 characters without surrounding spaces' });
        continue;
      }
      const parsed = SPEC_SCHEMAS[kind].safeParse(raw ?? {});
      if (!parsed.success) {
        for (const f of fieldIssues(parsed.error)) issues.push({ source_file, kind, name, path: f.path ? `${where}.${f.path}` : where, message: f.message });
        continue;
      }
      resources.push({ kind, name, source_file, spec: parsed.data });
    }
  }
  return { resources, issues };
}

/**
 * Read and parse `files` (paths; each recorded as given). A name declared twice for one kind,
 * in one file set, is an issue on both.
 * @throws Error when a file cannot be read
 */
export async function loadFiles(files: string[]): Promise<LoadedFiles> {
  const out: LoadedFiles = { files, resources: [], issues: [] };
  for (const file of files) {
    const { resources, issues } = parseFileText(file, await readFile(file, 'utf8'));
    out.resources.push(...resources);
    out.issues.push(...issues);
  }
  const seen = new Map<string, Declared>();
  for (const r of out.resources) {
    const id = `${r.kind}\0${r.name}`;
    const first = seen.get(id);
    if (first) out.issues.push({ source_file: r.source_file, kind: r.kind, name: r.name, path: `${KIND_SECTION[r.kind]}.${r.name}`, message: `already declared in ${first.source_file}` });
    else seen.set(id, r);
  }
  return out;
}
