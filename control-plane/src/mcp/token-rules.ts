import { MCP_TOKEN_LIMITS, maskSecret, newSecret, type CreateMcpTokenRequest, type McpToken, type McpTokenType } from '@vantage/shared-protocol';
import { ApiError } from '../errors.js';
import { hashSecret } from '../accounts/secrets.js';
import type { McpTokenRow, NewMcpToken } from './mcp-tokens.db.js';

/** Longest lifetime of a token of `type` in ms (docs/api/mcp.md "Lifetimes"): personal 24 h, else 90 days. */
export function maxLifetimeMs(type: McpTokenType): number {
  return type === 'personal' ? MCP_TOKEN_LIMITS.personal_max_ms : MCP_TOKEN_LIMITS.long_max_ms;
}

/**
 * The expiry a token of `type` gets for the asked `expires_at` (ISO, or absent = the maximum).
 * @throws ApiError validation_error (422, `details.field` expires_at) past the maximum from `now_ms`;
 *   VALIDATION_FAILED (400) when it is not in the future
 */
export function expiryFor(type: McpTokenType, expires_at: string | undefined, now_ms: number): Date {
  const max = now_ms + maxLifetimeMs(type);
  if (expires_at === undefined) return new Date(max);
  const at = Date.parse(expires_at);
  if (at <= now_ms) throw new ApiError('VALIDATION_FAILED', 'expires_at must be in the future', { fields: [{ path: 'expires_at', message: 'must be in the future' }] });
  if (at > max) {
    throw new ApiError('validation_error', `a ${type} token lives at most ${type === 'personal' ? '24 hours' : '90 days'}`,
      { field: 'expires_at', max_expires_at: new Date(max).toISOString() });
  }
  return new Date(at);
}

/** @throws ApiError validation_error (422, `details.field` ip_whitelist) for a service token without an IP whitelist. */
export function requireWhitelist(type: McpTokenType, ip_whitelist: readonly string[]): void {
  if (type === 'service' && ip_whitelist.length === 0) {
    throw new ApiError('validation_error', 'a service token needs ip_whitelist (one CIDR at least)', { field: 'ip_whitelist' });
  }
}

/**
 * A new token from a validated create request: its row fields and its `svc_mcp_` secret (only the
 * hash is stored). Personal tokens never auto-renew; the others do unless `auto_renew: false`.
 * @throws ApiError validation_error (see expiryFor, requireWhitelist)
 */
export function newMcpToken(owner: { user_id: string; team_id: string | null }, body: CreateMcpTokenRequest, now_ms: number): { fields: NewMcpToken; secret: string } {
  const ip_whitelist = body.ip_whitelist ?? [];
  requireWhitelist(body.type, ip_whitelist);
  const expires_at = expiryFor(body.type, body.expires_at, now_ms);
  const secret = newSecret('mcp_token');
  return {
    secret,
    fields: {
      ...owner, type: body.type, name: body.name, secret_hash: hashSecret(secret), token_display: maskSecret(secret),
      scope_tools: body.scope?.tools ?? [], scope_regions: body.scope?.regions ?? [], ip_whitelist,
      auto_renew: body.type === 'personal' ? false : body.auto_renew ?? true, store_failed_payloads: body.store_failed_payloads ?? false, expires_at,
    },
  };
}

/** What a use of a token at `now_ms` means for it (docs/api/mcp.md "Auto-renew"). */
export type TokenUse =
  | { ok: true; renew_to: Date | null }
  | { ok: false; reason: 'revoked' | 'expired' | 'unused' };

/**
 * Decide a use of `row` at `now_ms`: revoked or expired tokens are refused; a workspace or service
 * token with auto_renew that was last used (or, never used, created) 30 days or more ago is
 * refused as `unused` (it is revoked then, as the reference says); one used in the last 24 h
 * before its expiry is renewed by its own lifetime (capped at the type's maximum from now).
 */
export function decideUse(row: McpTokenRow, now_ms: number): TokenUse {
  if (row.revoked_at) return { ok: false, reason: 'revoked' };
  const renews = row.auto_renew && row.type !== 'personal';
  const idle_ms = now_ms - (row.last_used_at ?? row.created_at).getTime();
  if (renews && idle_ms >= MCP_TOKEN_LIMITS.unused_max_ms) return { ok: false, reason: 'unused' };
  const expires_ms = row.expires_at.getTime();
  if (expires_ms <= now_ms) return { ok: false, reason: 'expired' };
  if (!renews || expires_ms - now_ms > MCP_TOKEN_LIMITS.renew_window_ms) return { ok: true, renew_to: null };
  const lifetime_ms = expires_ms - (row.last_renewed_at ?? row.created_at).getTime();
  return { ok: true, renew_to: new Date(Math.min(now_ms + lifetime_ms, now_ms + maxLifetimeMs(row.type))) };
}

/** The McpToken wire shape of a row (never the secret or its hash). */
export function toMcpToken(row: McpTokenRow): McpToken {
  return {
    id: row.id, owner_id: row.user_id, type: row.type, name: row.name, token_display: row.token_display,
    scope: { tools: row.scope_tools, regions: row.scope_regions }, ip_whitelist: row.ip_whitelist,
    auto_renew: row.auto_renew, store_failed_payloads: row.store_failed_payloads,
    expires_at: row.expires_at.toISOString(), last_used_at: row.last_used_at?.toISOString() ?? null,
    last_renewed_at: row.last_renewed_at?.toISOString() ?? null, revoked: row.revoked_at !== null,
    revoke_reason: row.revoke_reason, created_at: row.created_at.toISOString(),
  };
}
