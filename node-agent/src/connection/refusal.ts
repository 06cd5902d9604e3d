import type { IncomingMessage } from 'node:http';

const BODY_MAX_BYTES = 16 * 1024;

/** Read at most 16 KiB of a refused upgrade's response body (never rejects; '' on error). */
export function readRefusalBody(res: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => resolve(Buffer.concat(chunks).toString('utf8'));
    res.on('data', (chunk: Buffer) => {
      if (size < BODY_MAX_BYTES) chunks.push(chunk.subarray(0, BODY_MAX_BYTES - size));
      size += chunk.length;
      if (size >= BODY_MAX_BYTES) done();
    });
    res.on('end', done);
    res.on('error', done);
    res.on('close', done);
  });
}

/**
 * Operator-readable reason for a refused upgrade: the error envelope (docs/api/conventions.md)'s
 * `error.code: error.message` when the body is one (`{ "error": { "code", "message" } }`),
 * else the HTTP status and a slice of the body.
 * @example describeRefusal(401, '{"error":{"code":"NODE_ENROLLMENT_TOKEN_INVALID","message":"token already used"}}')
 *   // → 'HTTP 401: NODE_ENROLLMENT_TOKEN_INVALID: token already used'
 */
export function describeRefusal(status: number, body: string): string {
  try {
    const json = JSON.parse(body) as { error?: { code?: unknown; message?: unknown } };
    const code = typeof json.error?.code === 'string' ? json.error.code : null;
    const message = typeof json.error?.message === 'string' ? json.error.message : null;
    if (code || message) return `HTTP ${status}: ${[code, message].filter(Boolean).join(': ')}`;
  } catch {
    // not JSON: fall through
  }
  const text = body.trim().slice(0, 200);
  return text ? `HTTP ${status}: ${text}` : `HTTP ${status}`;
}
