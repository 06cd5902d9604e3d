import type { Context, MiddlewareHandler } from 'hono';
import { HEARTBEAT_BODY_MAX_BYTES } from '@vantage/shared-protocol';
import type { AppEnv } from '../env.js';
import { HEARTBEAT_PATH } from '../monitors/heartbeat.js';

/*
 * The body of a heartbeat check-in (docs/api/checks.md "heartbeat"): whatever a job sends (a log
 * tail, JSON, binary output, any size) must never cost the check-in, so the route reads it itself
 * instead of the app's body middleware (the 32 KB refusal, the JSON text checks) and keeps a
 * sanitised prefix: Postgres text and jsonb cannot hold NUL (SQLSTATE 22021 / 22P05), and bytes
 * that are not UTF-8 have no text form.
 */

/** A check-in's body as kept with its check: the sanitised text (null when empty) and whether it was cut. */
export interface KeptBody {
  body: string | null;
  body_truncated: boolean;
}

/** Is this request a check-in that carries a body (`POST /v1/heartbeat/...`)? */
export function isHeartbeatCheckin(c: Context): boolean {
  return c.req.method === 'POST' && c.req.path.startsWith(`${HEARTBEAT_PATH}/`);
}

/**
 * `mw` for every request but heartbeat check-ins with a body, which read and bound their body
 * themselves ({@link readCheckinBody}): app.ts wraps the 32 KB body limit and the input cleaner
 * with it (the check-in route hands Postgres nothing of its path but the token's hash).
 */
export function exceptHeartbeatCheckins(mw: MiddlewareHandler<AppEnv>): MiddlewareHandler<AppEnv> {
  return async function exceptHeartbeatCheckinsMiddleware(c, next) {
    if (isHeartbeatCheckin(c)) return next();
    return mw(c, next);
  };
}

const utf8 = new TextDecoder('utf-8');

/**
 * The first `max_bytes` of `bytes` as text: malformed UTF-8 becomes U+FFFD (WHATWG Encoding
 * "replacement" error mode), as does NUL; a character cut by the limit is dropped.
 * @param truncated whether the body went on past `bytes` (or `bytes` is longer than `max_bytes`)
 */
export function sanitisedBody(bytes: Uint8Array | null, truncated = false, max_bytes = HEARTBEAT_BODY_MAX_BYTES): KeptBody {
  if (!bytes || bytes.length === 0) return { body: null, body_truncated: false };
  const cut = truncated || bytes.length > max_bytes;
  const text = utf8.decode(bytes.length > max_bytes ? bytes.subarray(0, max_bytes) : bytes).replaceAll('\0', '\uFFFD');
  return { body: cut ? text.replace(/\uFFFD+$/, '') : text, body_truncated: cut };
}

/**
 * Read a check-in request's body, keeping at most `max_bytes` (default HEARTBEAT_BODY_MAX_BYTES)
 * and stopping there: the rest is left unread (the HTTP server discards it after the answer,
 * @hono/node-server's bounded drain), so a body of any size costs `max_bytes` of memory.
 * A body that breaks off (client gone) counts with what arrived.
 * @returns the kept body, sanitised ({@link sanitisedBody})
 */
export async function readCheckinBody(req: Request, max_bytes = HEARTBEAT_BODY_MAX_BYTES): Promise<KeptBody> {
  if (!req.body) return { body: null, body_truncated: false };
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  try {
    // One byte past the limit tells a body that was cut from one that fits exactly.
    while (length <= max_bytes) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      length += value.length;
    }
  } catch {
    // the client broke the body off: what arrived is the body
  } finally {
    reader.releaseLock();
  }
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return sanitisedBody(bytes, length > max_bytes, max_bytes);
}
