import { z } from 'zod';
import { pageOf } from './envelope.js';
import { textString } from './parse.js';
import { timeParamSchema } from './monitors/history.js';

/**
 * MCP tokens, sessions and tool calls (docs/api/mcp.md). A token's secret (`svc_mcp_…`) is valid
 * only at the MCP entry point; these shapes are what `/v1/mcp/...` manages and reports.
 */

/** Token kinds: `personal` (at most 24 h), `workspace` and `service` (at most 90 days; service needs an IP whitelist). */
export const MCP_TOKEN_TYPES = ['personal', 'workspace', 'service'] as const;
export type McpTokenType = (typeof MCP_TOKEN_TYPES)[number];

/** Lifetime limits of docs/api/mcp.md "Lifetimes", in ms. */
export const MCP_TOKEN_LIMITS = {
  /** Personal tokens: default and maximum lifetime (24 h). */
  personal_max_ms: 24 * 3_600_000,
  /** Workspace and service tokens: maximum lifetime (90 days). */
  long_max_ms: 90 * 86_400_000,
  /** Auto-renew happens when a token is used within this window before expiry (24 h). */
  renew_window_ms: 24 * 3_600_000,
  /** A token unused this long is never renewed again (30 days). */
  unused_max_ms: 30 * 86_400_000,
  /** Raw payloads of failed calls are kept this long (7 days). */
  raw_retention_ms: 7 * 86_400_000,
} as const;

/** Tool-call outcomes (docs/api/mcp.md "Tool calls"). */
export const MCP_TOOL_CALL_STATUSES = ['success', 'failure', 'timeout', 'rate_limited'] as const;
export type McpToolCallStatus = (typeof MCP_TOOL_CALL_STATUSES)[number];

/** MCP client kinds recorded per session, from the client's `initialize` info. */
export const MCP_CLIENT_KINDS = ['sdk-py', 'sdk-ts', 'other'] as const;

const cidr = z.string().trim().max(64).refine(
  (s) => z.cidrv4().safeParse(s).success || z.cidrv6().safeParse(s).success,
  { message: 'must be a CIDR such as 203.0.113.0/24 or 2001:db8::/32' },
);
const name = textString().trim().min(1).max(100);
const names = z.array(textString().trim().min(1).max(64)).max(100);

/** `scope` of a token: the tools it may call and the node regions it may use; `[]`/absent = all. */
export const mcpTokenScopeSchema = z.object({
  tools: names.default([]),
  regions: names.default([]),
});

/**
 * `POST /v1/mcp/tokens` body. The server decides the rules that need the clock or the type: an
 * `expires_at` past the type's maximum and a service token without `ip_whitelist` → 422
 * `validation_error`.
 * @example { "type": "workspace", "name": "ci", "expires_at": "2026-12-20T00:00:00Z", "ip_whitelist": ["203.0.113.0/24"] }
 */
export const createMcpTokenRequestSchema = z.object({
  type: z.enum(MCP_TOKEN_TYPES),
  name,
  /** Absent: personal 24 h from now; workspace and service 90 days from now. */
  expires_at: z.iso.datetime({ offset: true }).optional(),
  /** Default true; ignored (stored false) for personal tokens. */
  auto_renew: z.boolean().optional(),
  ip_whitelist: z.array(cidr).max(50).optional(),
  scope: mcpTokenScopeSchema.optional(),
  /** Keep raw request/response payloads of failed calls for 7 days (default false: hashes only). */
  store_failed_payloads: z.boolean().optional(),
}).strict();
export type CreateMcpTokenRequest = z.infer<typeof createMcpTokenRequestSchema>;

/** `PATCH /v1/mcp/tokens/{id}` body: any of these; `expires_at` obeys the same maximum from now. */
export const updateMcpTokenRequestSchema = z.object({
  name: name.optional(),
  expires_at: z.iso.datetime({ offset: true }).optional(),
  auto_renew: z.boolean().optional(),
  ip_whitelist: z.array(cidr).max(50).optional(),
  scope: mcpTokenScopeSchema.partial().optional(),
  store_failed_payloads: z.boolean().optional(),
}).strict();
export type UpdateMcpTokenRequest = z.infer<typeof updateMcpTokenRequestSchema>;

/** `DELETE /v1/mcp/tokens/{id}` optional body: why it is revoked. */
export const revokeMcpTokenRequestSchema = z.object({ revoke_reason: textString().trim().max(500).optional() }).strict();

/** McpToken: never the secret; `token_display` is `svc_mcp_` + first 4 … last 4. */
export const mcpTokenSchema = z.object({
  id: z.string(),
  owner_id: z.string(),
  type: z.enum(MCP_TOKEN_TYPES),
  name: z.string(),
  token_display: z.string(),
  scope: z.object({ tools: z.array(z.string()), regions: z.array(z.string()) }),
  ip_whitelist: z.array(z.string()),
  auto_renew: z.boolean(),
  store_failed_payloads: z.boolean(),
  expires_at: z.string(),
  last_used_at: z.string().nullable(),
  last_renewed_at: z.string().nullable(),
  revoked: z.boolean(),
  revoke_reason: z.string().nullable(),
  created_at: z.string(),
});
export type McpToken = z.infer<typeof mcpTokenSchema>;

/** Create response `data`: the token and its secret, shown once. */
export const createdMcpTokenSchema = z.object({ token: mcpTokenSchema, secret: z.string() });

/** McpSession (docs/api/mcp.md "Sessions"). */
export const mcpSessionSchema = z.object({
  id: z.string(),
  owner_id: z.string(),
  token_id: z.string(),
  client_id: z.enum(MCP_CLIENT_KINDS),
  client_ip: z.string(),
  client_version: z.string(),
  started_at: z.string(),
  last_activity_at: z.string(),
  ended_at: z.string().nullable(),
  total_tool_calls: z.number().int(),
  total_units: z.number().int(),
});
export type McpSession = z.infer<typeof mcpSessionSchema>;

/** McpToolCall (docs/api/mcp.md "Tool calls"); payload hashes are SHA-256 hex of the JSON text. */
export const mcpToolCallSchema = z.object({
  id: z.string(),
  owner_id: z.string(),
  session_id: z.string(),
  tool_name: z.string(),
  status: z.enum(MCP_TOOL_CALL_STATUSES),
  latency_ms: z.number().int(),
  error_class: z.string().nullable(),
  error_detail: z.string().nullable(),
  request_payload_hash: z.string(),
  response_payload_hash: z.string(),
  request_bytes: z.number().int(),
  response_bytes: z.number().int(),
  request_payload_raw: z.record(z.string(), z.unknown()).nullable(),
  response_payload_raw: z.record(z.string(), z.unknown()).nullable(),
  payload_retain_until: z.string().nullable(),
  created_at: z.string(),
});
export type McpToolCall = z.infer<typeof mcpToolCallSchema>;

const page = z.coerce.number().int().min(1).max(1_000_000).default(1);
const pageSize = z.coerce.number().int().min(1).max(200).default(20);

/** `GET /v1/mcp/sessions` query: `token_id`, `page`, `page_size`; newest first. */
export const mcpSessionListQuerySchema = z.object({ token_id: z.string().max(64).optional(), page, page_size: pageSize });

/** `GET /v1/mcp/tool-calls` query: filters `session_id`, `tool_name`, `status`, `from`, `to` (ISO or relative like -1h); newest first. */
export const mcpToolCallListQuerySchema = z.object({
  session_id: z.string().max(64).optional(),
  tool_name: z.string().max(64).optional(),
  status: z.enum(MCP_TOOL_CALL_STATUSES).optional(),
  from: timeParamSchema.optional(),
  to: timeParamSchema.optional(),
  page,
  page_size: pageSize,
});

export const mcpSessionPageSchema = pageOf(mcpSessionSchema);
export const mcpToolCallPageSchema = pageOf(mcpToolCallSchema);
