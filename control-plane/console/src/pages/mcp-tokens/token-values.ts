import type { CreateMcpTokenRequest, McpToken, McpTokenType, UpdateMcpTokenRequest } from '@vantage/shared-protocol';
import { fromLocalInput, toLocalInput } from '../../components/time.js';

/**
 * The MCP token form's values (text as typed) and the request bodies made of them (docs/api/mcp.md
 * "Tokens"): lists are split on commas and new lines, a blank expiry takes the type's default.
 */
export interface TokenValues {
  type: McpTokenType; name: string; expires_at: string; auto_renew: boolean; ip_whitelist: string;
  tools: string; regions: string; store_failed_payloads: boolean;
}

export const EMPTY_TOKEN: TokenValues = { type: 'workspace', name: '', expires_at: '', auto_renew: true, ip_whitelist: '', tools: '', regions: '', store_failed_payloads: false };

const list = (text: string): string[] => text.split(/[,\n]/).map((s) => s.trim()).filter(Boolean);

/** POST /v1/mcp/tokens body (a personal token never auto-renews: the flag is not sent). */
export function createTokenBody(v: TokenValues): CreateMcpTokenRequest {
  const cidrs = list(v.ip_whitelist);
  return {
    type: v.type, name: v.name.trim(),
    ...(v.expires_at ? { expires_at: fromLocalInput(v.expires_at) } : {}),
    ...(v.type === 'personal' ? {} : { auto_renew: v.auto_renew }),
    ...(cidrs.length ? { ip_whitelist: cidrs } : {}),
    scope: { tools: list(v.tools), regions: list(v.regions) },
    store_failed_payloads: v.store_failed_payloads,
  };
}

/** PATCH /v1/mcp/tokens/{id} body: every field the form shows; the expiry only when it was changed. */
export function updateTokenBody(v: TokenValues, saved: McpToken): UpdateMcpTokenRequest {
  const expiry = v.expires_at && v.expires_at !== toLocalInput(new Date(saved.expires_at)) ? { expires_at: fromLocalInput(v.expires_at) } : {};
  return {
    name: v.name.trim(), ...expiry,
    ...(saved.type === 'personal' ? {} : { auto_renew: v.auto_renew }),
    ip_whitelist: list(v.ip_whitelist), scope: { tools: list(v.tools), regions: list(v.regions) }, store_failed_payloads: v.store_failed_payloads,
  };
}

/** The form's values of a saved token. */
export function tokenValuesOf(tk: McpToken): TokenValues {
  return {
    type: tk.type, name: tk.name, expires_at: toLocalInput(new Date(tk.expires_at)), auto_renew: tk.auto_renew,
    ip_whitelist: tk.ip_whitelist.join('\n'), tools: tk.scope.tools.join(', '), regions: tk.scope.regions.join(', '), store_failed_payloads: tk.store_failed_payloads,
  };
}

/** A token's state: revoked, expired (past `expires_at`) or live. */
export function tokenState(tk: McpToken, now = Date.now()): 'revoked' | 'expired' | 'live' {
  if (tk.revoked) return 'revoked';
  return Date.parse(tk.expires_at) <= now ? 'expired' : 'live';
}
