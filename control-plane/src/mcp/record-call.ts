import { createHash } from 'node:crypto';
import { MCP_TOKEN_LIMITS, type McpToolCallStatus } from '@vantage/shared-protocol';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Sql } from '../db/sql.js';
import type { Logger } from '../log.js';
import { ApiError } from '../errors.js';
import { insertMcpToolCall } from './mcp-activity.db.js';
import type { McpTokenRow } from './mcp-tokens.db.js';
import type { ToolOutput } from './tools.js';

/** Per-token fixed one-minute windows of tool calls (docs/api/mcp.md "Rate limits"), on this instance. */
export class ToolCallLimiter {
  readonly #windows = new Map<string, { start_ms: number; count: number }>();
  constructor(private readonly per_min: number) {}

  /** Count a call of `token_id` at `now_ms`; @returns false when the token is over its limit. */
  take(token_id: string, now_ms: number): boolean {
    const w = this.#windows.get(token_id);
    if (!w || now_ms - w.start_ms >= 60_000) {
      if (this.#windows.size > 10_000) this.#windows.clear();
      this.#windows.set(token_id, { start_ms: now_ms, count: 1 });
      return true;
    }
    w.count += 1;
    return w.count <= this.per_min;
  }
}

/** What one recorded call needs. */
export interface CallRecord { sql: Sql; log: Logger; token: McpTokenRow; session_id: string; limiter: ToolCallLimiter; timeout_ms: number; now: () => number }

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** A failed call's status and class: a timeout, an ApiError's code, else `internal`. */
function classify(err: unknown, signal: AbortSignal): { status: McpToolCallStatus; error_class: string; detail: string } {
  if (signal.aborted || (err instanceof Error && err.name === 'TimeoutError')) return { status: 'timeout', error_class: 'timeout', detail: 'the tool did not finish in time' };
  if (err instanceof ApiError) return { status: 'failure', error_class: err.code, detail: err.message };
  return { status: 'failure', error_class: 'internal', detail: 'internal error' };
}

/**
 * Run tool `tool_name` with `args` under the token's rate limit and the call timeout, and record
 * the call (docs/api/mcp.md "Tool calls"): status, latency, SHA-256 of the request and response
 * JSON with their sizes in bytes, and, for a failed or timed-out call of a token whose owner opted
 * in (store_failed_payloads), the raw payloads until 7 days later. A recording failure is logged
 * and does not change the answer.
 * @returns the MCP result: structured content plus a text summary, or `isError` with the reason
 */
export async function recordedCall(rec: CallRecord, tool_name: string, args: Record<string, unknown>, run: (signal: AbortSignal) => Promise<ToolOutput>): Promise<CallToolResult> {
  const started = performance.now();
  const signal = AbortSignal.timeout(rec.timeout_ms);
  let result: CallToolResult;
  let status: McpToolCallStatus = 'success';
  let error_class: string | null = null;
  let error_detail: string | null = null;
  let units = 0;
  if (!rec.limiter.take(rec.token.id, rec.now())) {
    status = 'rate_limited';
    error_class = 'RATE_LIMIT_EXCEEDED';
    error_detail = 'too many tool calls for this MCP token; retry within a minute';
    result = { isError: true, content: [{ type: 'text', text: error_detail }], structuredContent: { error: { code: error_class, message: error_detail } } };
  } else {
    try {
      const out = await Promise.race([run(signal), new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }))]);
      units = out.units;
      result = { content: [{ type: 'text', text: out.text }], structuredContent: out.data };
    } catch (err) {
      const c = classify(err, signal);
      if (c.error_class === 'internal') rec.log.error({ err, tool_name }, 'mcp tool failed');
      ({ status, error_class, detail: error_detail } = { status: c.status, error_class: c.error_class, detail: c.detail });
      result = { isError: true, content: [{ type: 'text', text: `${c.error_class}: ${c.detail}` }], structuredContent: { error: { code: c.error_class, message: c.detail, ...(err instanceof ApiError && err.details ? { details: err.details } : {}) } } };
    }
  }
  const latency_ms = Math.round(performance.now() - started);
  const request_json = JSON.stringify(args);
  const response_json = JSON.stringify(result);
  const keep_raw = rec.token.store_failed_payloads && (status === 'failure' || status === 'timeout');
  await insertMcpToolCall(rec.sql, {
    user_id: rec.token.user_id, session_id: rec.session_id, tool_name, status, latency_ms, error_class, error_detail,
    request_payload_hash: sha256(request_json), response_payload_hash: sha256(response_json),
    request_bytes: Buffer.byteLength(request_json), response_bytes: Buffer.byteLength(response_json),
    request_payload_raw: keep_raw ? args : null, response_payload_raw: keep_raw ? (result as Record<string, unknown>) : null,
    payload_retain_until: keep_raw ? new Date(rec.now() + MCP_TOKEN_LIMITS.raw_retention_ms) : null,
  }, units).catch((err: unknown) => rec.log.error({ err, tool_name }, 'mcp tool call not recorded'));
  return result;
}
