import { z } from 'zod';
import { LIMITS } from './limits.js';
import { jsonDepthAt } from './json-depth.js';
import { nodeMessageSchema, serverMessageSchema, type NodeMessage, type ServerMessage } from './node-protocol/messages.js';

/** Outcome of validating untrusted input: the value, or a readable one-line error plus field issues. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string; issues: FieldIssue[] };
/** One field-level problem: a dotted path (`params.count`, `results[0].result_id`) and a message. */
export type FieldIssue = { path: string; message: string };

/** Dotted path of a zod issue path: `['results', 0, 'id']` → `results[0].id`. */
export function issuePath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : out ? `.${String(part)}` : String(part);
  return out;
}

/** Field issues of a zod error, in order, with readable paths (used for docs/api/conventions.md `details`). */
export function fieldIssues(error: z.ZodError): FieldIssue[] {
  return error.issues.map((i) => ({ path: issuePath(i.path), message: i.message }));
}

/** "path: message; path: message" for logs and protocol `error` messages. */
export function describeIssues(issues: FieldIssue[]): string {
  return issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
}

// A NUL (U+0000) cannot be stored in Postgres text or jsonb (SQLSTATE 22021, 22P05); a lone UTF-16
// surrogate has no UTF-8 encoding (it would be stored silently as U+FFFD). With the `u` flag a
// valid surrogate pair is one code point, so only lone halves match \p{Cs}.
const NUL = /\u0000/;
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Why `s` is not storable text, or null when it is: a NUL character (U+0000) or a lone UTF-16
 * surrogate (U+D800-U+DFFF not part of a pair). Every string a client sends is held to this rule
 * (docs/api/accounts.md "Text input"); the message names the problem, never the value.
 */
export function textFault(s: string): string | null {
  if (NUL.test(s)) return 'must not contain NUL (U+0000)';
  if (LONE_SURROGATE.test(s)) return 'must not contain a lone UTF-16 surrogate';
  return null;
}

/**
 * A `z.string()` that refuses what {@link textFault} refuses (NUL, lone surrogates), with its
 * message; chain `.trim()`, `.max()` and the rest after it.
 * @example const name = textString().trim().min(1).max(100);
 */
export function textString() {
  return z.string().superRefine((s, ctx) => {
    const fault = textFault(s);
    if (fault) ctx.addIssue({ code: 'custom', message: fault });
  });
}

/** A path segment for a key of untrusted JSON: NUL and lone surrogates shown as `\uXXXX`. */
function keyLabel(key: string): string {
  return key.replace(/[\u0000\p{Cs}]/gu, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * The first string in parsed JSON (object keys included) that {@link textFault} refuses, as a
 * field issue whose path reads like {@link issuePath} (`headers.accept`, `node_ids[2]`), or null.
 * Walks iteratively, so any nesting depth JSON.parse accepted is safe.
 */
export function findTextFault(value: unknown): FieldIssue | null {
  const stack: Array<{ value: unknown; path: string }> = [{ value, path: '' }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!;
    if (typeof v === 'string') {
      const fault = textFault(v);
      if (fault) return { path, message: fault };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], path: `${path}[${i}]` });
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i]!;
        const keyPath = path ? `${path}.${keyLabel(key)}` : keyLabel(key);
        const fault = textFault(key);
        if (fault) return { path: keyPath, message: `key ${fault}` };
        stack.push({ value: child, path: keyPath });
      }
    }
  }
  return null;
}

/**
 * The field issue of JSON text that nests more than `max_depth` arrays and objects (json-depth.ts
 * jsonDepthAt, a scan of the text that builds nothing), or null: `path` reads like
 * {@link issuePath} and names the value that opens the level past the bound (empty at the top).
 * Checked before JSON.parse, so recursive validation never meets deeper input
 * (docs/api/conventions.md "Limits": LIMITS.json_depth_max for request bodies,
 * LIMITS.ws_message_depth_max for node-protocol messages).
 */
export function jsonDepthFault(text: string, max_depth: number): FieldIssue | null {
  const deep = jsonDepthAt(text, max_depth);
  return deep && { path: issuePath(deep.path), message: `nested deeper than ${max_depth} levels of arrays and objects` };
}

/** Validate `input` with `schema`, never throwing. */
export function safeParse<S extends z.ZodType>(schema: S, input: unknown): Parsed<z.infer<S>> {
  const r = schema.safeParse(input);
  if (r.success) return { ok: true, value: r.data };
  const issues = fieldIssues(r.error);
  return { ok: false, error: describeIssues(issues), issues };
}

function parseFrame<S extends z.ZodType>(schema: S, raw: string | Buffer): Parsed<z.infer<S>> {
  const size = typeof raw === 'string' ? Buffer.byteLength(raw) : raw.length;
  if (size > LIMITS.ws_message_max_bytes) {
    return { ok: false, error: `message of ${size} bytes exceeds ${LIMITS.ws_message_max_bytes}`, issues: [] };
  }
  const text = typeof raw === 'string' ? raw : raw.toString('utf8');
  const deep = jsonDepthFault(text, LIMITS.ws_message_depth_max);
  if (deep) return { ok: false, error: `message ${deep.path ? `${deep.path}: ` : ''}${deep.message}`, issues: [deep] };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, error: 'message is not valid JSON', issues: [] };
  }
  return safeParse(schema, json);
}

/**
 * Parse one WebSocket frame sent by a node. Errors: oversized frame (over 1 MiB), nesting deeper
 * than LIMITS.ws_message_depth_max (naming where), invalid JSON, unknown `type` ("type: Invalid
 * input: expected …"), or field errors with paths.
 */
export function parseNodeMessage(raw: string | Buffer): Parsed<NodeMessage> {
  return parseFrame(nodeMessageSchema, raw);
}

/** Parse one WebSocket frame sent by the control plane (same errors as {@link parseNodeMessage}). */
export function parseServerMessage(raw: string | Buffer): Parsed<ServerMessage> {
  return parseFrame(serverMessageSchema, raw);
}
