import { newId, type McpTokenType } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';

/** An `mcp_tokens` row (0070_mcp.sql). */
export interface McpTokenRow {
  id: string;
  user_id: string;
  team_id: string | null;
  type: McpTokenType;
  name: string;
  secret_hash: string;
  token_display: string;
  scope_tools: string[];
  scope_regions: string[];
  ip_whitelist: string[];
  auto_renew: boolean;
  store_failed_payloads: boolean;
  expires_at: Date;
  last_used_at: Date | null;
  last_renewed_at: Date | null;
  revoked_at: Date | null;
  revoke_reason: string | null;
  created_at: Date;
}

/** The fields a new token is stored with (the secret only as its hash). */
export type NewMcpToken = Pick<McpTokenRow, 'user_id' | 'team_id' | 'type' | 'name' | 'secret_hash' | 'token_display' | 'scope_tools' | 'scope_regions' | 'ip_whitelist' | 'auto_renew' | 'store_failed_payloads' | 'expires_at'>;

/** Insert a token; @returns its row. */
export async function insertMcpToken(ex: SqlExecutor, t: NewMcpToken): Promise<McpTokenRow> {
  const [row] = await ex<McpTokenRow[]>`
    INSERT INTO mcp_tokens (id, user_id, team_id, type, name, secret_hash, token_display, scope_tools, scope_regions, ip_whitelist, auto_renew, store_failed_payloads, expires_at)
    VALUES (${newId('mcp_token')}, ${t.user_id}, ${t.team_id}, ${t.type}, ${t.name}, ${t.secret_hash}, ${t.token_display}, ${t.scope_tools}::text[], ${t.scope_regions}::text[],
      ${t.ip_whitelist}::text[], ${t.auto_renew}, ${t.store_failed_payloads}, ${t.expires_at})
    RETURNING *`;
  return row!;
}

/** The tokens of `user_id` (a workspace credential: of its team `team_id` only), newest first. */
export async function listMcpTokens(ex: SqlExecutor, user_id: string, team_id: string | null): Promise<McpTokenRow[]> {
  const team = team_id === null ? ex`` : ex`AND team_id = ${team_id}`;
  return ex<McpTokenRow[]>`SELECT * FROM mcp_tokens WHERE user_id = ${user_id} ${team} ORDER BY created_at DESC, id DESC`;
}

/** One token by id, or null. */
export async function findMcpToken(ex: SqlExecutor, id: string): Promise<McpTokenRow | null> {
  const [row] = await ex<McpTokenRow[]>`SELECT * FROM mcp_tokens WHERE id = ${id}`;
  return row ?? null;
}

/** The token whose secret hashes to `secret_hash`, or null. */
export async function findMcpTokenByHash(ex: SqlExecutor, secret_hash: string): Promise<McpTokenRow | null> {
  const [row] = await ex<McpTokenRow[]>`SELECT * FROM mcp_tokens WHERE secret_hash = ${secret_hash}`;
  return row ?? null;
}

/** Change the given fields of token `id`; @returns the row after, or null when it is gone. */
export async function updateMcpToken(ex: SqlExecutor, id: string, p: Partial<Pick<McpTokenRow, 'name' | 'expires_at' | 'auto_renew' | 'ip_whitelist' | 'scope_tools' | 'scope_regions' | 'store_failed_payloads'>>): Promise<McpTokenRow | null> {
  const [row] = await ex<McpTokenRow[]>`
    UPDATE mcp_tokens SET
      name = COALESCE(${p.name ?? null}, name),
      expires_at = COALESCE(${p.expires_at ?? null}::timestamptz, expires_at),
      auto_renew = COALESCE(${p.auto_renew ?? null}::boolean, auto_renew),
      ip_whitelist = COALESCE(${p.ip_whitelist ?? null}::text[], ip_whitelist),
      scope_tools = COALESCE(${p.scope_tools ?? null}::text[], scope_tools),
      scope_regions = COALESCE(${p.scope_regions ?? null}::text[], scope_regions),
      store_failed_payloads = COALESCE(${p.store_failed_payloads ?? null}::boolean, store_failed_payloads)
    WHERE id = ${id} RETURNING *`;
  return row ?? null;
}

/** Revoke token `id` (a second revoke keeps the first time and reason); @returns the row after. */
export async function revokeMcpToken(ex: SqlExecutor, id: string, reason: string | null): Promise<McpTokenRow | null> {
  const [row] = await ex<McpTokenRow[]>`
    UPDATE mcp_tokens SET revoked_at = COALESCE(revoked_at, now()), revoke_reason = CASE WHEN revoked_at IS NULL THEN ${reason} ELSE revoke_reason END
    WHERE id = ${id} RETURNING *`;
  return row ?? null;
}

/**
 * Record a use of token `id` at `now`; when `renew_to` is given (the auto-renew rule decided it,
 * mcp/token-rules.ts), move its expiry there and stamp last_renewed_at.
 */
export async function touchMcpToken(ex: SqlExecutor, id: string, now: Date, renew_to: Date | null): Promise<void> {
  if (renew_to) await ex`UPDATE mcp_tokens SET last_used_at = ${now}, expires_at = ${renew_to}, last_renewed_at = ${now} WHERE id = ${id}`;
  else await ex`UPDATE mcp_tokens SET last_used_at = ${now} WHERE id = ${id}`;
}
