import type { ApiClient } from '../../as-code/client.js';
import { EXIT, type VantageIo } from './io.js';
import { renderTable } from './table.js';

interface NodeRow { node_name: string; node: { country?: string; city?: string | null; asn?: number | null } | null; success: boolean; error: string | null; latency_ms: number | null; finished_at: string | null }
interface Task { task_id: string; status: string; target: string; probe_type: string; node_results: NodeRow[]; summary: unknown }

/**
 * `vantage probe TYPE TARGET`: run a probe (docs/api/probes.md) on `nodes` nodes, show progress
 * while nodes answer (a rewritten status line on a terminal, lines otherwise), then a table with
 * one row per node (or the task as JSON). Polls GET /v1/probe/tasks/{id} every `poll_ms`.
 * @returns exit 0 when every node succeeded, 1 otherwise
 */
export async function probeCommand(io: VantageIo, api: ApiClient, type: string, target: string, opts: { nodes: number; countries: string[]; params: Record<string, unknown>; json: boolean; poll_ms?: number; timeout_s?: number }): Promise<number> {
  const created = await api.post<{ task_id: string; task_ids: string[] }>(`/v1/probe/${encodeURIComponent(type)}`, {
    target, nodes: { count: opts.nodes, ...(opts.countries.length ? { countries: opts.countries } : {}) }, params: opts.params,
  });
  const deadline = Date.now() + (opts.timeout_s ?? 120) * 1000;
  let task: Task;
  let shown = -1;
  for (;;) {
    task = await api.get<Task>(`/v1/probe/tasks/${created.task_id}`);
    const answered = task.node_results.filter((r) => r.finished_at !== null || r.success || r.error).length;
    if (!opts.json && answered !== shown) {
      const line = `${task.probe_type} ${task.target}: ${answered}/${Math.max(created.task_ids.length, task.node_results.length)} nodes answered (${task.status})`;
      if (io.status) io.status(line); else io.err(line);
      shown = answered;
    }
    if (task.status === 'completed' || task.status === 'failed' || Date.now() > deadline) break;
    await io.sleep(opts.poll_ms ?? 500, io.signal);
  }
  if (io.status) io.status('');
  if (opts.json) {
    io.out(JSON.stringify(task, null, 2));
  } else {
    io.out(renderTable(['node', 'location', 'result', 'latency ms', 'error'], task.node_results.map((r) => [
      r.node_name, [r.node?.city, r.node?.country].filter(Boolean).join(', ') || null, r.success ? 'ok' : 'failed',
      r.latency_ms === null ? null : Math.round(r.latency_ms * 10) / 10, r.error,
    ])));
    io.out(`task ${task.task_id}: ${task.status}`);
  }
  return task.status === 'completed' && task.node_results.every((r) => r.success) ? EXIT.ok : EXIT.error;
}
