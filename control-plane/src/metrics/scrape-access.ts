import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import type { Config } from '../config/index.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Whether an address is on the loopback interface (127.0.0.0/8, ::1, or IPv4-mapped 127.x). */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return address === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

/**
 * Who may read GET /metrics (docs/operators/metrics.md "Access"). With `metrics_token` set: a
 * request carrying `Authorization: Bearer <token>` (compared in constant time), else 401
 * AUTH_REQUIRED (no token) or AUTH_INVALID_TOKEN (another one). Without it: a peer on the loopback
 * interface that sent no X-Forwarded-For or Forwarded header (a reverse proxy on the same host
 * adds one), else 403 FORBIDDEN naming VANTAGE_METRICS_TOKEN.
 * @throws ApiError as above
 */
export function authorizeScrape(c: Context<AppEnv>, config: Pick<Config, 'metrics_token'>): void {
  if (config.metrics_token) {
    const header = c.req.header('Authorization');
    if (!header) throw new ApiError('AUTH_REQUIRED', 'send the metrics token as Authorization: Bearer <token>');
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match || !timingSafeEqual(digest(match[1]!), digest(config.metrics_token))) throw new ApiError('AUTH_INVALID_TOKEN', 'the metrics token is not the one configured');
    return;
  }
  const peer = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket?.remoteAddress;
  if (!isLoopback(peer) || c.req.header('X-Forwarded-For') !== undefined || c.req.header('Forwarded') !== undefined) {
    throw new ApiError('FORBIDDEN', '/metrics answers loopback peers only; set VANTAGE_METRICS_TOKEN to scrape from another host');
  }
}
