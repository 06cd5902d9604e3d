import type { DiagnoseScope, DiagnoseSection, ProbeTaskResult } from '@vantage/shared-protocol';

/** Weights of the overall score (docs/api/probes.md "Diagnose" rubric); they sum to 100. */
export const SCOPE_WEIGHTS: Record<DiagnoseScope, number> = { http: 25, ping: 15, dns: 15, traceroute: 10, ssl: 20, security_headers: 15 };

type Node = Record<string, any>;
const clamp = (v: number) => Math.max(0, Math.min(100, Math.round(v)));
const okShare = (g: ProbeTaskResult) => (g.node_results.length ? g.summary.success_count / g.node_results.length : 0);
const pct = (x: number) => `${Math.round(x * 100)} %`;

/** http: share of nodes answered below 400 × 100, less 20 above 1 s average response and 40 above 3 s. */
function http(g: ProbeTaskResult, f: string[]): number {
  const share = okShare(g);
  if (share < 1) f.push(`${g.summary.fail_count} of ${g.node_results.length} nodes failed`);
  const avg = g.summary.avg_response_ms;
  let score = share * 100;
  if (avg !== null && avg > 3000) { score -= 40; f.push(`slow: ${avg} ms average response`); } else if (avg !== null && avg > 1000) { score -= 20; f.push(`slow: ${avg} ms average response`); }
  return score;
}

/** ping: 100 − mean packet loss %, less 10 above 150 ms average rtt. */
function ping(g: ProbeTaskResult, f: string[]): number {
  const losses = g.node_results.map((n: Node) => (typeof n.packet_loss === 'number' ? n.packet_loss : 100));
  const loss = losses.length ? losses.reduce((a, b) => a + b, 0) / losses.length : 100;
  if (loss > 0) f.push(`${loss.toFixed(1)} % packet loss`);
  const avg = g.summary.avg_response_ms;
  if (avg !== null && avg > 150) f.push(`high latency: ${avg} ms average rtt`);
  return 100 - loss - (avg !== null && avg > 150 ? 10 : 0);
}

/** dns: share of nodes resolving × 100, less 30 when nodes disagree (pollution_detected). */
function dns(g: ProbeTaskResult, f: string[]): number {
  const share = okShare(g);
  if (share < 1) f.push(`${pct(1 - share)} of nodes could not resolve`);
  if (g.pollution_detected) f.push('nodes resolve the name differently');
  return share * 100 - (g.pollution_detected ? 30 : 0);
}

/** traceroute: share of nodes whose trace reached the destination × 100. */
function traceroute(g: ProbeTaskResult, f: string[]): number {
  const reached = g.node_results.filter((n: Node) => n.destination_reached === true).length;
  const share = g.node_results.length ? reached / g.node_results.length : 0;
  if (share < 1) f.push(`the destination was not reached from ${g.node_results.length - reached} of ${g.node_results.length} nodes`);
  return share * 100;
}

/** ssl: 0 without a TLS answer or with an expired certificate; 50 under 14 days left, 80 under 30, else 100. */
function ssl(g: ProbeTaskResult, f: string[]): number {
  const cert = (g.node_results.find((n: Node) => n.success && n.certificate) as Node | undefined)?.certificate;
  if (!cert) { f.push('no TLS answer on https'); return 0; }
  const days = cert.days_left as number;
  if (days < 0) { f.push(`certificate expired ${-days} days ago`); return 0; }
  if (days < 14) { f.push(`certificate expires in ${days} days`); return 50; }
  if (days < 30) { f.push(`certificate expires in ${days} days`); return 80; }
  return 100;
}

/** security_headers: 100 − 25 per analysis reason (no_https_redirect, no_hsts, no_compression, no_cdn); 0 without an answer. */
function securityHeaders(g: ProbeTaskResult, f: string[]): number {
  if (!g.analysis) { f.push('no answer to analyse'); return 0; }
  for (const r of g.analysis.reasons) f.push(r);
  return 100 - 25 * g.analysis.reasons.length;
}

const RUBRIC: Record<DiagnoseScope, (g: ProbeTaskResult, findings: string[]) => number> = { http, ping, dns, traceroute, ssl, security_headers: securityHeaders };

/** One report section from its probe group (null while the group is running: score null, no findings). */
export function scoreSection(scope: DiagnoseScope, group: ProbeTaskResult): DiagnoseSection {
  const base = { probe_type: group.probe_type, task_ids: group.task_ids };
  if (group.status === 'queued' || group.status === 'running') return { ...base, status: 'running', score: null, findings: [] };
  const findings: string[] = [];
  const score = clamp(RUBRIC[scope](group, findings));
  return { ...base, status: group.status, score, findings };
}

/** The weighted mean of the scored sections' scores (SCOPE_WEIGHTS), rounded; null when none is scored. */
export function overallScore(sections: Partial<Record<DiagnoseScope, DiagnoseSection>>): number | null {
  let sum = 0;
  let weight = 0;
  for (const [scope, s] of Object.entries(sections) as Array<[DiagnoseScope, DiagnoseSection]>) {
    if (s.score === null) continue;
    sum += s.score * SCOPE_WEIGHTS[scope];
    weight += SCOPE_WEIGHTS[scope];
  }
  return weight ? Math.round(sum / weight) : null;
}
