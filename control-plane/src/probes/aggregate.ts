import type { CheckSpec, NodeResult, ProbeTaskResult, ProbeType, TaskStatus } from '@vantage/shared-protocol';

/** What aggregation needs of a task row (probes/tasks.db.ts TaskRow). */
export interface AggTask {
  id: string;
  node_id: string;
  probe_type: ProbeType;
  target: string;
  check: CheckSpec;
  status: 'queued' | 'running' | 'completed' | 'failed';
  created_at: Date;
  finished_at: Date | null;
}

/** What aggregation needs of a stored result (probes/tasks.db.ts ProbeResultRow). */
export interface AggResult {
  task_id: string;
  node_id: string;
  success: boolean;
  error: string | null;
  error_class: string | null;
  output: Record<string, unknown> | null;
  finished_at: Date;
  /** When the control plane stored it (probe_results.stored_at). */
  stored_at?: Date;
}

/** A node's name and facts (docs/api/probes.md `node` = {asn, city, country, isp}). */
export interface AggNode { node_id: string; name: string; asn: number | null; city: string | null; country: string | null; isp: string | null }

type Output = Record<string, any>;

/**
 * The headline time of one result in ms (docs/api/probes.md `latency_ms`), per type: http `response_ms`,
 * ping `rtt_avg_ms`, dns `query_ms`, tcp `connect_ms`, traceroute = mean of the answered rtts of
 * the last hop that answered; mtr = `avg_ms` of the last hop that answered; smtp `timing.total_ms`;
 * ntp `delay_ms`; headers `response_ms`; speedtest `ttfb_ms`; ssl the audit's `audit_ms`. Null when the output has none.
 */
export function latencyMs(type: ProbeType, output: Output | null): number | null {
  if (!output) return null;
  const pick = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  switch (type) {
    case 'http': return pick(output.response_ms);
    case 'ping': return pick(output.rtt_avg_ms);
    case 'dns': return pick(output.query_ms);
    case 'tcp': return pick(output.connect_ms);
    case 'traceroute': {
      const hops = Array.isArray(output.hops) ? (output.hops as Array<{ address: string | null; rtts_ms: Array<number | null> }>) : [];
      for (let i = hops.length - 1; i >= 0; i--) {
        const rtts = (hops[i]!.rtts_ms ?? []).filter((v): v is number => typeof v === 'number');
        if (hops[i]!.address !== null && rtts.length > 0) return round(rtts.reduce((a, b) => a + b, 0) / rtts.length);
      }
      return null;
    }
    case 'mtr': {
      const hops = Array.isArray(output.hops) ? (output.hops as Array<{ avg_ms: number | null }>) : [];
      for (let i = hops.length - 1; i >= 0; i--) if (typeof hops[i]!.avg_ms === 'number') return pick(hops[i]!.avg_ms);
      return null;
    }
    case 'smtp': return pick((output.timing as Output | undefined)?.total_ms);
    case 'ntp': return pick(output.delay_ms);
    case 'headers': return pick(output.response_ms);
    case 'speedtest': return pick(output.ttfb_ms);
    case 'ssl': return pick((output.audit as Output | null | undefined)?.audit_ms);
    default: return null;
  }
}

function round(v: number): number {
  return Math.round(v * 100) / 100;
}

/**
 * Summary of docs/api/probes.md over ended node results: `avg_response_ms` and `p95_response_ms`
 * (nearest-rank: the ⌈0.95·n⌉-th smallest) over successful results' latency, null when there is
 * none; `success_count` and `fail_count` over all ended node results.
 */
export function summarise(results: Array<{ success: boolean; latency_ms: number | null }>): ProbeTaskResult['summary'] {
  const latencies = results.filter((r) => r.success && r.latency_ms !== null).map((r) => r.latency_ms!).sort((a, b) => a - b);
  const success_count = results.filter((r) => r.success).length;
  const n = latencies.length;
  return {
    avg_response_ms: n ? round(latencies.reduce((a, b) => a + b, 0) / n) : null,
    p95_response_ms: n ? latencies[Math.ceil(0.95 * n) - 1]! : null,
    success_count,
    fail_count: results.length - success_count,
  };
}

/**
 * True for the one kind of node result that is not final: a failure the control plane recorded in
 * place of a result it did not get (probe_results.replaceable: no result by the deadline, node
 * disconnected, node restarted without the task, task not delivered, result not storable). If the
 * node's own result comes later it replaces this one (probes/sink.ts, tasks.db.ts
 * dropServerFailure); node results and a node's refusal are final (docs/api/probes.md).
 */
export function isReplaceable(r: { replaceable?: boolean }): boolean {
  return r.replaceable === true;
}

/**
 * Group status (docs/api/probes.md): `queued` while no node has accepted or answered, `running`
 * while some node has not ended, then `completed` when at least one node succeeded, else `failed`.
 */
export function groupStatus(tasks: AggTask[], results: AggResult[]): TaskStatus {
  const ended = new Set(results.map((r) => r.task_id));
  if (tasks.every((t) => ended.has(t.id))) return results.some((r) => r.success) ? 'completed' : 'failed';
  if (results.length === 0 && tasks.every((t) => t.status === 'queued')) return 'queued';
  return 'running';
}

/** The DNS answer set of one result, as a comparable key: rcode plus sorted `TYPE value` lines (TTL ignored). */
function answerKey(output: Output): string {
  const answers = Array.isArray(output.answers) ? (output.answers as Array<{ type: string; value: string }>) : [];
  const lines = [...new Set(answers.map((a) => `${String(a.type).toUpperCase()} ${String(a.value).toLowerCase().replace(/\.$/, '')}`))].sort();
  return `${String(output.rcode ?? '')}\n${lines.join('\n')}`;
}

/**
 * DNS pollution (docs/api/probes.md: true when nodes resolve inconsistently): the successful nodes' answer
 * sets (rcode + sorted unique type/value pairs, TTLs and case ignored) are not all equal. False
 * with fewer than two successful nodes.
 */
export function pollutionDetected(outputs: Output[]): boolean {
  return new Set(outputs.map(answerKey)).size > 1;
}

/**
 * The headers-analysis fields of a group (docs/api/probes.md "HTTP headers analysis"): `url`,
 * `final_url`, `hops`, `headers`, `security`, `analysis` of the first ended result with an output,
 * a successful one first; none while no node has one.
 */
export function headersAnalysis(results: AggResult[]): Partial<ProbeTaskResult> {
  const pick = results.find((r) => r.success && r.output) ?? results.find((r) => r.output);
  if (!pick) return {};
  const o = pick.output as Output;
  return { url: o.url, final_url: o.final_url, hops: o.hops, headers: o.headers, security: o.security, analysis: o.analysis };
}

/**
 * One node result of docs/api/probes.md: `node_id`, `node_name`, `node` {asn, city, country, isp} (from
 * `facts`; nulls when the node row is gone), `success`, `error`, `error_class`, `latency_ms`
 * ({@link latencyMs}), `finished_at`, and the type's output fields spread in (http: final_url,
 * status_code, response_ms, …). Results without output (offline, timeout) carry the base only.
 */
export function buildNodeResult(type: ProbeType, task: AggTask, result: AggResult, facts: AggNode | undefined): NodeResult {
  const base = {
    node_id: task.node_id,
    node_name: facts?.name ?? task.node_id,
    node: { asn: facts?.asn ?? null, city: facts?.city ?? null, country: facts?.country ?? null, isp: facts?.isp ?? null },
    success: result.success,
    error: result.error,
    error_class: (result.error_class ?? null) as NodeResult['error_class'],
    latency_ms: latencyMs(type, result.output),
    finished_at: result.finished_at.toISOString(),
  };
  return (result.output ? { ...result.output, ...base } : base) as NodeResult;
}

/**
 * Build the polling answer of a probe group (docs/api/probes.md; shared-protocol probeTaskResultSchema):
 * one node result per ended task in `task_ids` order (node facts from `nodes`, the type's output
 * fields spread in, latency per {@link latencyMs}), the summary, the group status, `completed_at`
 * (the last task's end) and `updated_at` (creation or the last result stored); DNS groups add
 * `domain`, `type`, `pollution_detected` and `records_by_node` (every node with an output);
 * headers groups add the analysis fields ({@link headersAnalysis}).
 * @param task_id the id that was polled (any id of the group)
 * @param built node results already built for these result rows (filled in as they are built):
 *   a poll of a large group rebuilds only the results that are new since the last one
 */
export function aggregateGroup(task_id: string, tasks: AggTask[], results: AggResult[], nodes: AggNode[], built?: WeakMap<AggResult, NodeResult>): ProbeTaskResult {
  const first = tasks[0]!;
  const type = first.probe_type;
  const byTask = new Map(results.map((r) => [r.task_id, r]));
  const facts = new Map(nodes.map((n) => [n.node_id, n]));
  const ended: Array<{ result: AggResult; node: NodeResult }> = [];
  for (const task of tasks) {
    const result = byTask.get(task.id);
    if (!result) continue;
    let node = built?.get(result);
    if (!node) {
      node = buildNodeResult(type, task, result, facts.get(task.node_id));
      built?.set(result, node);
    }
    ended.push({ result, node });
  }
  const status = groupStatus(tasks, results);
  // A task's finished_at is written in the transaction that stores its result: tasks and results
  // read in one statement (groups.db.ts) always agree.
  const finished = tasks.map((t) => t.finished_at?.getTime() ?? 0);
  const updated = Math.max(first.created_at.getTime(), ...results.map((r) => r.stored_at?.getTime() ?? 0));
  const out: ProbeTaskResult = {
    task_id,
    task_ids: tasks.map((t) => t.id),
    probe_type: type,
    target: first.target,
    status,
    created_at: first.created_at.toISOString(),
    completed_at: status === 'completed' || status === 'failed' ? new Date(Math.max(...finished)).toISOString() : null,
    updated_at: new Date(updated).toISOString(),
    node_results: ended.map((e) => e.node),
    summary: summarise(ended.map((e) => ({ success: e.node.success, latency_ms: e.node.latency_ms }))),
  };
  if (type === 'dns') {
    const withOutput = ended.filter((e) => e.result.output);
    out.domain = first.target;
    out.type = first.check.type === 'dns' ? first.check.params.record_type : 'A';
    out.pollution_detected = pollutionDetected(withOutput.filter((e) => e.result.success).map((e) => e.result.output!));
    out.records_by_node = withOutput.map((e) => ({ node_id: e.result.node_id, records: (e.result.output!.answers ?? []) as any[] }));
  }
  if (type === 'headers') Object.assign(out, headersAnalysis(ended.map((e) => e.result)));
  return out;
}
