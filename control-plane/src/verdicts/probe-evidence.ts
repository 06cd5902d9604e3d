import type { ProbeType } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';
import { latencyMs } from '../probes/aggregate.js';
import { probeResultsInWindow, type ProbeObservationRow } from './verdicts.db.js';

/*
 * What a report shows of the ad-hoc probes the customer ran against its target in the window
 * (docs/api/verdicts.md "Templates and prices"): per probe type and node, the results, failures
 * and response-time percentiles, the response time being each type's headline time (probes
 * aggregate.ts latencyMs: http response_ms, ping rtt_avg_ms, dns query_ms, tcp connect_ms…).
 */

/** Probe results one report reads at most (ad-hoc probes are few; a report says when it stopped). */
export const PROBE_RESULTS_MAX = 5000;

/** One node's results of one probe type. Percentiles are nearest-rank over the successful results that measured a time (ms). */
export interface ProbeEvidenceRow {
  probe_type: string;
  node_id: string;
  country: string | null;
  probes: number;
  failures: number;
  failure_rate: number | null;
  p50_ms: number | null;
  p95_ms: number | null;
  p99_ms: number | null;
  max_ms: number | null;
}

/** The ⌈p·n⌉-th smallest of `sorted` (nearest rank), or null when empty. */
function nearestRank(sorted: number[], p: number): number | null {
  return sorted.length === 0 ? null : sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
}

/** Summarise `rows` per probe type and node, ordered by type then node. */
export function summariseProbes(rows: ProbeObservationRow[]): ProbeEvidenceRow[] {
  const groups = new Map<string, { first: ProbeObservationRow; probes: number; failures: number; times: number[] }>();
  for (const r of rows) {
    const key = `${r.probe_type}\u0000${r.node_id}`;
    const g = groups.get(key) ?? { first: r, probes: 0, failures: 0, times: [] };
    g.probes++;
    if (!r.success) g.failures++;
    const ms = r.success ? latencyMs(r.probe_type as ProbeType, r.output) : null;
    if (ms !== null) g.times.push(ms);
    groups.set(key, g);
  }
  return [...groups.values()]
    .map(({ first, probes, failures, times }) => {
      const sorted = times.sort((a, b) => a - b);
      return {
        probe_type: first.probe_type, node_id: first.node_id, country: first.country, probes, failures, failure_rate: probes === 0 ? null : failures / probes,
        p50_ms: nearestRank(sorted, 0.5), p95_ms: nearestRank(sorted, 0.95), p99_ms: nearestRank(sorted, 0.99), max_ms: sorted.at(-1) ?? null,
      };
    })
    .sort((a, b) => a.probe_type.localeCompare(b.probe_type) || a.node_id.localeCompare(b.node_id));
}

/**
 * The probe evidence of `user_id`'s order of `target` over [from, to): per type and node, and
 * whether the PROBE_RESULTS_MAX bound cut the results short.
 */
export async function gatherProbeEvidence(sql: SqlExecutor, user_id: string, target: string, from: Date, to: Date): Promise<{ rows: ProbeEvidenceRow[]; results: number; truncated: boolean }> {
  const results = await probeResultsInWindow(sql, user_id, target, from, to, PROBE_RESULTS_MAX + 1);
  const truncated = results.length > PROBE_RESULTS_MAX;
  const kept = truncated ? results.slice(0, PROBE_RESULTS_MAX) : results;
  return { rows: summariseProbes(kept), results: kept.length, truncated };
}
