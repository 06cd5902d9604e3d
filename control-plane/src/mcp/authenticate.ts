import ipaddr from 'ipaddr.js';
import { SECRET_PREFIXES } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { hashSecret } from '../accounts/secrets.js';
import { findMcpTokenByHash, revokeMcpToken, touchMcpToken, type McpTokenRow } from './mcp-tokens.db.js';
import { decideUse } from './token-rules.js';

/** last_used_at is written at most this often per token, ms. */
const TOUCH_EVERY_MS = 60_000;

/** Whether `ip` (a client address) falls in one of `cidrs`; [] = any address. */
export function ipAllowed(cidrs: readonly string[], ip: string): boolean {
  if (cidrs.length === 0) return true;
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.process(ip);
  } catch {
    return false;
  }
  return cidrs.some((c) => {
    const [range, bits] = ipaddr.parseCIDR(c);
    return range.kind() === addr.kind() && addr.match(range, bits);
  });
}

/**
 * The MCP token an `Authorization` header carries at the MCP entry point (docs/api/mcp.md
 * "Authentication"), checked at `now_ms` for the client at `client_ip`; a use is recorded and an
 * auto-renew applied (token-rules.ts decideUse). A token unused for 30 days is revoked here.
 * @throws ApiError 401 AUTH_REQUIRED (no header), AUTH_INVALID_TOKEN (not `Bearer svc_mcp_…`, an API
 *   key or session token, unknown), API_KEY_REVOKED, TOKEN_EXPIRED; 403 FORBIDDEN (client address
 *   outside the token's ip_whitelist, `details.client_ip`)
 */
export async function authenticateMcp(deps: Pick<AppDeps, 'sql'>, header: string | undefined, client_ip: string, now_ms: number): Promise<McpTokenRow> {
  if (header === undefined) throw new ApiError('AUTH_REQUIRED', 'send Authorization: Bearer <MCP_TOKEN> (an svc_mcp_ token)');
  const m = /^Bearer +(\S{1,4096})\s*$/i.exec(header);
  if (!m || !m[1]!.startsWith(SECRET_PREFIXES.mcp_token)) throw new ApiError('AUTH_INVALID_TOKEN', 'only MCP tokens (svc_mcp_…) are accepted at the MCP entry point');
  const row = await findMcpTokenByHash(deps.sql, hashSecret(m[1]!));
  if (!row) throw new ApiError('AUTH_INVALID_TOKEN', 'invalid MCP token');
  const use = decideUse(row, now_ms);
  if (!use.ok) {
    if (use.reason === 'unused') await revokeMcpToken(deps.sql, row.id, 'unused for 30 days');
    throw use.reason === 'expired' ? new ApiError('TOKEN_EXPIRED', 'MCP token expired') : new ApiError('API_KEY_REVOKED', use.reason === 'unused' ? 'MCP token revoked: unused for 30 days' : 'MCP token revoked');
  }
  if (!ipAllowed(row.ip_whitelist, client_ip)) throw new ApiError('FORBIDDEN', `this MCP token is not accepted from ${client_ip}`, { client_ip });
  // last_used_at is written at most once a minute (a write on every call's path), and at every renewal.
  if (use.renew_to || !row.last_used_at || now_ms - row.last_used_at.getTime() > TOUCH_EVERY_MS) await touchMcpToken(deps.sql, row.id, new Date(now_ms), use.renew_to);
  return use.renew_to ? { ...row, expires_at: use.renew_to, last_renewed_at: new Date(now_ms), last_used_at: new Date(now_ms) } : { ...row, last_used_at: new Date(now_ms) };
}
