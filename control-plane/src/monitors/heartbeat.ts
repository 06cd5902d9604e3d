import { createHash } from 'node:crypto';
import { maskSecret, newSecret } from '@vantage/shared-protocol';

/** Path of the check-in endpoint a heartbeat monitor's job calls, under the public base URL. */
export const HEARTBEAT_PATH = '/v1/heartbeat';

/** sha256 hex of a check-in token: the only form stored (monitors.heartbeat_token_hash). */
export function hashHeartbeatToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A new check-in token (`hb_` + 160 random bits) with its stored hash and display preview. */
export function newHeartbeatToken(): { token: string; hash: string; preview: string } {
  const token = newSecret('heartbeat_token');
  return { token, hash: hashHeartbeatToken(token), preview: maskSecret(token) };
}

/**
 * The full check-in URL of `token`: `<base>/v1/heartbeat/<token>`, where `base` is the configured
 * base URL (config/public-url.ts publicBaseUrl: VANTAGE_PUBLIC_URL, else the listening address).
 */
export function heartbeatUrl(base: string, token: string): string {
  return `${base.replace(/\/+$/, '')}${HEARTBEAT_PATH}/${token}`;
}
