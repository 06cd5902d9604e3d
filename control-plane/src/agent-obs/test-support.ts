import { newId, roundPhaseMs, type MonitorResultEnvelope } from '@vantage/shared-protocol';
import type { Sql } from '../db/sql.js';
import { seedNodes } from '../checks/test-support.js';

/*
 * Fixtures of the agent-obs tests: a backing monitor placed on seeded nodes since a day ago (so
 * ingest accepts rounds of the past day), and agent endpoint results shaped as nodes send them.
 */

const DAY_MS = 86_400_000;

/** Place the backing monitor `monitor_id` on `count` new online nodes, as if created and placed a day ago. @returns the node ids */
export async function placeBacking(sql: Sql, monitor_id: string, count: number): Promise<string[]> {
  const since = new Date(Date.now() - DAY_MS);
  const nodes = await seedNodes(sql, count);
  await sql`UPDATE monitors SET created_at = ${since} WHERE id = ${monitor_id}`;
  await sql`UPDATE monitor_schedules SET from_at = ${since} WHERE monitor_id = ${monitor_id} AND from_at = (SELECT min(from_at) FROM monitor_schedules WHERE monitor_id = ${monitor_id})`;
  await sql`DELETE FROM monitor_placements WHERE monitor_id = ${monitor_id}`;
  await sql`INSERT INTO monitor_placements (monitor_id, node_id, revision, placed_at) SELECT ${monitor_id}, n, 1, ${since} FROM unnest(${nodes}::text[]) AS n`;
  return nodes;
}

/** The start of round `k` (0 = now's, negative = earlier) of a monitor of `interval_s`. */
export function roundOf(monitor_id: string, interval_s: number, k: number): string {
  const phase = roundPhaseMs(monitor_id, interval_s);
  const current = Math.floor((Date.now() - phase) / (interval_s * 1000));
  return new Date(phase + (current + k) * interval_s * 1000).toISOString();
}

/** An agent endpoint result (`type`, default llm_endpoint): success with `tokens` [prompt, completion] of `model`, or a failure with `status_code`. */
export function llmResult(monitor_id: string, scheduled_at: string, opts: {
  type?: 'llm_endpoint' | 'tool_api' | 'rag'; model?: string; tokens?: [number, number] | null; status_code?: number; error?: string; error_class?: string;
} = {}): MonitorResultEnvelope {
  const start = Date.parse(scheduled_at) + 3;
  const status = opts.status_code ?? 200;
  const success = status < 400 && opts.error === undefined;
  const tokens: [number, number] | null = opts.tokens === undefined ? [12, 7] : opts.tokens;
  return {
    result_id: newId('result'), task_id: null, monitor_id, type: opts.type ?? 'llm_endpoint', scheduled_at,
    started_at: new Date(start).toISOString(), finished_at: new Date(start + 120).toISOString(), success,
    error: success ? null : opts.error ?? `status_code ${status} is not in 200-299`, error_class: success ? null : (opts.error_class ?? 'assertion'), assertions: [],
    output: {
      final_url: 'http://127.0.0.1/v1/chat/completions', resolved_address: '127.0.0.1', status_code: status, latency_ms: 120, timing: null,
      response_size: 200, body_truncated: false, model: opts.model ?? 'house-model', prompt_tokens: tokens?.[0] ?? null, completion_tokens: tokens?.[1] ?? null,
      tokens_used: tokens ? tokens[0] + tokens[1] : null, response_preview: '{"choices":[{"message":{"content":"pong"}}]}', missing_fields: [],
    },
  } as MonitorResultEnvelope;
}

/** Distinct rounds of a monitor, oldest first, fixed at the call (`roundOf` moves with the clock): `n` from round `k0` on. */
export function roundsFrom(monitor_id: string, interval_s: number, k0: number): () => string {
  let next = Date.parse(roundOf(monitor_id, interval_s, k0));
  return () => {
    const at = new Date(next).toISOString();
    next += interval_s * 1000;
    return at;
  };
}
