import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';

/**
 * The caller's IP address for per-IP rate limits. From the socket; with `trust_proxy` the
 * rightmost X-Forwarded-For entry (the address the trusted proxy saw). Requests made with
 * `app.request()` (no socket) yield `'unknown'`.
 */
export function clientIp(c: Context, trust_proxy: boolean): string {
  if (trust_proxy) {
    const xff = c.req.header('x-forwarded-for');
    const last = xff?.split(',').map((s) => s.trim()).filter(Boolean).pop();
    if (last && last.length <= 64) return last;
  }
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
