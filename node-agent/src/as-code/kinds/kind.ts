import type { z } from 'zod';
import { fieldIssues, type AsCodeKind } from '@vantage/shared-protocol';
import type { ApiClient } from '../client.js';
import type { Env } from '../env-ref.js';
import type { ResourceChange } from '../plan.js';
import type { Existing } from '../state.js';

/*
 * One kind of resource beyond the first four (silences, maintenance windows, webhook endpoints,
 * status pages, dashboards): each is one file implementing this interface, registered in
 * kinds/index.ts, the only place the engine looks them up. Its spec schema is the file format,
 * `resolve` the checks and the comparable view, `list` the account's side, `create`/`update` the
 * API calls (docs/api/as-code.md).
 */

/** What a kind's checks may ask: whether a name is declared or exists, the resource of that name, the env, and where to report. */
export interface ResolveContext {
  known(kind: AsCodeKind, name: string): boolean;
  existing: Existing | null;
  env: Env;
  /** Report an issue at `path` (relative to the resource, dotted; '' for the resource itself). */
  issue(path: string, message: string): void;
}

/** A checked resource: its comparable `view` (references by name), the keys that count, and resolved secrets (sent, never shown). */
export interface Resolved {
  view: Record<string, unknown>;
  compare: string[];
  secrets?: Record<string, unknown>;
}

/** One resource of the account as listed: `name` is its stable name (null: it has none and files cannot manage it). */
export interface Listed {
  id: string;
  name: string | null;
  team_id: string | null;
  created_at: string;
  /** The dashboard version (sent as expected_version). */
  version?: number;
  /** Its view, references named through `nameOf` (monitor and group ids to names). */
  view(nameOf: (id: string) => string): Record<string, unknown>;
}

/** What a write needs: the client, and the id of a resource by kind and name (DEPENDENCY_FAILED when it is missing). */
export interface WriteContext {
  api: ApiClient;
  need(kind: AsCodeKind, name: string): string;
}

/** A kind's file section, collection path, spec schema and engine steps. */
export interface KindHandler {
  kind: AsCodeKind;
  section: string;
  path: string;
  spec: z.ZodType;
  /** Check a declared resource, reporting each issue through `ctx.issue` (the engine then leaves it out), and build its view. */
  resolve(name: string, spec: unknown, ctx: ResolveContext): Resolved;
  /** Every resource of the kind the caller can read (the engine keeps the personal ones). @throws ApiCallError */
  list(api: ApiClient): Promise<Listed[]>;
  /** An existing resource as it is written in a file (export). */
  exportSpec(e: Existing): Record<string, unknown>;
  /** Create it. @returns its id. @throws ApiCallError */
  create(c: ResourceChange, w: WriteContext): Promise<string>;
  /** Change it to match (only `c.fields` differ). @throws ApiCallError */
  update(c: ResourceChange, w: WriteContext): Promise<void>;
}

/** An ISO 8601 instant in the API's form (UTC, milliseconds), so a file's `+02:00` or `Z` compares equal. */
export function isoInstant(s: string): string {
  return new Date(s).toISOString();
}

/** Report the issues of a zod error (the API's own schema run over the request a resource becomes), paths mapped back to the file's fields. */
export function reportZod(error: z.ZodError, issue: ResolveContext['issue'], mapPath: (path: string) => string = (p) => p): void {
  for (const f of fieldIssues(error)) issue(mapPath(f.path), f.message);
}
