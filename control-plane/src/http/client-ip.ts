import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';

/**
 * The client's address from a connection: the socket peer, or with `trust_proxy` the rightmost
 * X-Forwarded-For entry (the address the trusted proxy saw). IPv4-mapped IPv6 (`::ffff:a.b.c.d`)
 * is unwrapped. Shared by HTTP requests (rate limits) and node WebSocket upgrades (node address,
 * GeoIP), so both see the same address behind a proxy.
 * @returns the address, or null when there is none
 */
export function pickClientIp(forwarded_for: string | string[] | undefined, socket_address: string | null | undefined, trust_proxy: boolean): string | null {
  let ip: string | null = socket_address ?? null;
  if (trust_proxy && forwarded_for !== undefined) {
    const joined = Array.isArray(forwarded_for) ? forwarded_for.join(',') : forwarded_for;
    const last = joined.split(',').map((s) => s.trim()).filter(Boolean).pop();
    if (last && last.length <= 64) ip = last;
  }
  return ip?.startsWith('::ffff:') ? ip.slice(7) : ip;
}

/** Whether the request came through @hono/node-server, whose bindings carry the Node request (`incoming`). */
function fromNodeServer(c: Context): boolean {
  const env = c.env as { server?: { incoming?: unknown }; incoming?: unknown } | undefined;
  return (env?.server ?? env)?.incoming !== undefined;
}

/**
 * The caller's IP address for per-IP rate limits ({@link pickClientIp} on the request). Requests
 * made with `app.request()` (no socket) yield `'unknown'` (they are not handed to getConnInfo:
 * its TypeError cost such a request more CPU than its routing).
 */
export function clientIp(c: Context, trust_proxy: boolean): string {
  const socket_address = fromNodeServer(c) ? getConnInfo(c).remote.address : undefined;
  return pickClientIp(c.req.header('x-forwarded-for'), socket_address, trust_proxy) ?? 'unknown';
}
