import type { z } from 'zod';
import { LIMITS } from './limits.js';
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

/** Field issues of a zod error, in order, with readable paths (used for spec 7 `details`). */
export function fieldIssues(error: z.ZodError): FieldIssue[] {
  return error.issues.map((i) => ({ path: issuePath(i.path), message: i.message }));
}

/** "path: message; path: message" for logs and protocol `error` messages. */
export function describeIssues(issues: FieldIssue[]): string {
  return issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
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
  let json: unknown;
  try {
    json = JSON.parse(typeof raw === 'string' ? raw : raw.toString('utf8'));
  } catch {
    return { ok: false, error: 'message is not valid JSON', issues: [] };
  }
  return safeParse(schema, json);
}

/**
 * Parse one WebSocket frame sent by a node. Errors: oversized frame (over 1 MiB), invalid JSON,
 * unknown `type` ("type: Invalid input: expected …"), or field errors with paths.
 */
export function parseNodeMessage(raw: string | Buffer): Parsed<NodeMessage> {
  return parseFrame(nodeMessageSchema, raw);
}

/** Parse one WebSocket frame sent by the control plane (same errors as {@link parseNodeMessage}). */
export function parseServerMessage(raw: string | Buffer): Parsed<ServerMessage> {
  return parseFrame(serverMessageSchema, raw);
}
