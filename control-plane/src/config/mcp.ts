import { z } from 'zod';

/** The MCP entry point (docs/api/mcp.md): its own listener, apart from the /v1 API. */
export const mcpConfigSchema = z.object({
  /**
   * Port of the MCP entry point (VANTAGE_MCP_PORT), served at path /mcp on VANTAGE_HOST; only
   * `svc_mcp_` tokens are accepted there. Unset = no MCP listener; 0 = a port the system picks.
   */
  mcp_port: z.coerce.number().int().min(0).max(65535).optional(),
  /** Tool calls one MCP token may make per minute (VANTAGE_MCP_RATE_LIMIT_PER_MIN); more are answered `rate_limited`. */
  mcp_rate_limit_per_min: z.coerce.number().int().min(1).max(1_000_000).default(120),
  /** Longest a tool waits for a probe's results, ms (VANTAGE_MCP_TOOL_TIMEOUT_MS); a call past it is recorded `timeout`. */
  mcp_tool_timeout_ms: z.coerce.number().int().min(1000).max(300_000).default(60_000),
});
