import { newId, type McpToolCallStatus } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';

/** An `mcp_sessions` row (0070_mcp.sql). */
export interface McpSessionRow {
  id: string;
  user_id: string;
  token_id: string;
  client_id: 'sdk-py' | 'sdk-ts' | 'other';
  client_ip: string;
  client_version: string;
  started_at: Date;
  last_activity_at: Date;
  ended_at: Date | null;
  total_tool_calls: number;
  total_units: number;
}

/** An `mcp_tool_calls` row. */
export interface McpToolCallRow {
  id: string;
  user_id: string;
  session_id: string;
  tool_name: string;
  status: McpToolCallStatus;
  latency_ms: number;
  error_class: string | null;
  error_detail: string | null;
  request_payload_hash: string;
  response_payload_hash: string;
  request_bytes: number;
  response_bytes: number;
  request_payload_raw: Record<string, unknown> | null;
  response_payload_raw: Record<string, unknown> | null;
  payload_retain_until: Date | null;
  created_at: Date;
}

/** Open a session; `id` is the MCP session id the transport announced (an mcps_ id). */
export async function insertMcpSession(ex: SqlExecutor, s: Pick<McpSessionRow, 'id' | 'user_id' | 'token_id' | 'client_id' | 'client_ip' | 'client_version'>): Promise<void> {
  await ex`INSERT INTO mcp_sessions (id, user_id, token_id, client_id, client_ip, client_version)
    VALUES (${s.id}, ${s.user_id}, ${s.token_id}, ${s.client_id}, ${s.client_ip}, ${s.client_version})`;
}

/** Set the client of session `id` from its `initialize` (an SSE session is recorded when its stream opens, before the client has named itself). */
export async function setMcpSessionClient(ex: SqlExecutor, id: string, client: Pick<McpSessionRow, 'client_id' | 'client_version'>): Promise<void> {
  await ex`UPDATE mcp_sessions SET client_id = ${client.client_id}, client_version = ${client.client_version}, last_activity_at = now() WHERE id = ${id}`;
}

/** Mark session `id` ended (once). */
export async function endMcpSession(ex: SqlExecutor, id: string): Promise<void> {
  await ex`UPDATE mcp_sessions SET ended_at = COALESCE(ended_at, now()) WHERE id = ${id}`;
}

/** Record one tool call and count it (and its `units`) on its session, in one statement. */
export async function insertMcpToolCall(ex: SqlExecutor, c: Omit<McpToolCallRow, 'id' | 'created_at'>, units: number): Promise<string> {
  const id = newId('mcp_tool_call');
  await ex`
    WITH call AS (
      INSERT INTO mcp_tool_calls (id, user_id, session_id, tool_name, status, latency_ms, error_class, error_detail, request_payload_hash, response_payload_hash,
        request_bytes, response_bytes, request_payload_raw, response_payload_raw, payload_retain_until)
      VALUES (${id}, ${c.user_id}, ${c.session_id}, ${c.tool_name}, ${c.status}, ${c.latency_ms}, ${c.error_class}, ${c.error_detail}, ${c.request_payload_hash},
        ${c.response_payload_hash}, ${c.request_bytes}, ${c.response_bytes}, ${c.request_payload_raw === null ? null : ex.json(c.request_payload_raw as never)},
        ${c.response_payload_raw === null ? null : ex.json(c.response_payload_raw as never)}, ${c.payload_retain_until})
      RETURNING session_id)
    UPDATE mcp_sessions SET total_tool_calls = total_tool_calls + 1, total_units = total_units + ${units}, last_activity_at = now()
    WHERE id = (SELECT session_id FROM call)`;
  return id;
}

/** Clear raw payloads whose retention ended before `now`; @returns how many calls were cleared. */
export async function clearExpiredPayloads(ex: SqlExecutor, now: Date): Promise<number> {
  const rows = await ex`UPDATE mcp_tool_calls SET request_payload_raw = NULL, response_payload_raw = NULL, payload_retain_until = NULL
    WHERE payload_retain_until IS NOT NULL AND payload_retain_until <= ${now} RETURNING id`;
  return rows.length;
}

/** One page of `user_id`'s sessions (of `token_id` when given), newest first, with the total. */
export async function listMcpSessions(ex: SqlExecutor, user_id: string, f: { token_id?: string; page: number; page_size: number }): Promise<{ rows: McpSessionRow[]; total: number }> {
  const token = f.token_id === undefined ? ex`` : ex`AND token_id = ${f.token_id}`;
  const [rows, [count]] = await Promise.all([
    ex<McpSessionRow[]>`SELECT * FROM mcp_sessions WHERE user_id = ${user_id} ${token} ORDER BY started_at DESC, id DESC LIMIT ${f.page_size} OFFSET ${(f.page - 1) * f.page_size}`,
    ex<{ n: number }[]>`SELECT count(*)::int AS n FROM mcp_sessions WHERE user_id = ${user_id} ${token}`,
  ]);
  return { rows, total: count!.n };
}

/** One session, or null. */
export async function findMcpSession(ex: SqlExecutor, id: string): Promise<McpSessionRow | null> {
  const [row] = await ex<McpSessionRow[]>`SELECT * FROM mcp_sessions WHERE id = ${id}`;
  return row ?? null;
}

/** Filters of a tool-call list; `from`/`to` bound created_at (inclusive). */
export interface ToolCallFilter { session_id?: string; tool_name?: string; status?: McpToolCallStatus; from?: Date; to?: Date; page: number; page_size: number }

/** One page of `user_id`'s tool calls matching `f`, newest first, with the total. */
export async function listMcpToolCalls(ex: SqlExecutor, user_id: string, f: ToolCallFilter): Promise<{ rows: McpToolCallRow[]; total: number }> {
  const where = ex`user_id = ${user_id}
    ${f.session_id === undefined ? ex`` : ex`AND session_id = ${f.session_id}`}
    ${f.tool_name === undefined ? ex`` : ex`AND tool_name = ${f.tool_name}`}
    ${f.status === undefined ? ex`` : ex`AND status = ${f.status}`}
    ${f.from === undefined ? ex`` : ex`AND created_at >= ${f.from}`}
    ${f.to === undefined ? ex`` : ex`AND created_at <= ${f.to}`}`;
  const [rows, [count]] = await Promise.all([
    ex<McpToolCallRow[]>`SELECT * FROM mcp_tool_calls WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ${f.page_size} OFFSET ${(f.page - 1) * f.page_size}`,
    ex<{ n: number }[]>`SELECT count(*)::int AS n FROM mcp_tool_calls WHERE ${where}`,
  ]);
  return { rows, total: count!.n };
}

/** One tool call, or null. */
export async function findMcpToolCall(ex: SqlExecutor, id: string): Promise<McpToolCallRow | null> {
  const [row] = await ex<McpToolCallRow[]>`SELECT * FROM mcp_tool_calls WHERE id = ${id}`;
  return row ?? null;
}
