import { LEGAL_DISCLAIMER } from '@vantage/shared-protocol';
import type { ReportWriter } from '../attestation/pdf-writer.js';
import type { MonitorEvidence } from './evidence.js';
import type { ProbeEvidenceRow } from './probe-evidence.js';

/** Sections every signed report shares (verdict orders, compliance reports). */

const ms = (v: number | null) => (v === null ? '-' : `${Math.round(v * 10) / 10} ms`);
const pct = (v: number | null) => (v === null ? '-' : `${(Math.round(v * 10_000) / 100).toFixed(2)} %`);
const dur = (s: number) => (s >= 3600 ? `${(s / 3600).toFixed(1)} h` : s >= 60 ? `${Math.round(s / 60)} min` : `${Math.round(s)} s`);

/** Uptime %, as a report prints it (2 decimals), or `-` without data. */
export function formatUptime(uptime: number | null): string {
  return pct(uptime);
}

/** One monitor's evidence: uptime and rounds, per-node observations (checks, failures, rtt percentiles), state changes. */
export async function writeMonitorEvidence(w: ReportWriter, ev: MonitorEvidence): Promise<void> {
  await w.heading(`${ev.name} (${ev.type})`);
  await w.paragraph(`Monitor ${ev.monitor_id}, target ${ev.target}`, { muted: true });
  const u = ev.uptime;
  await w.paragraph(
    `Uptime ${formatUptime(u.uptime)} over ${dur(u.monitored_s)} observed (down ${dur(u.downtime_s)}, degraded ${dur(u.degraded_s)}, maintenance ${dur(u.maintenance_s)}, no data ${dur(u.no_data_s)}). ` +
    `Rounds: ${u.rounds.up} up, ${u.rounds.degraded} degraded, ${u.rounds.down} down, ${u.rounds.no_data} without data. Incidents: ${u.incidents}` +
    `${u.mttr_s === null ? '' : `, mean time to recovery ${dur(u.mttr_s)}`}.`,
  );
  w.table(
    ['Node', 'Country', 'Checks', 'Failures', 'Failure rate', 'p50', 'p95', 'p99', 'Max'],
    [
      ...ev.nodes.map((n) => [n.node_id ?? 'control plane', n.country ?? '-', String(n.checks), String(n.failures), pct(n.failure_rate), ms(n.p50_ms), ms(n.p95_ms), ms(n.p99_ms), ms(n.max_ms)]),
      ['All nodes', '', String(ev.overall.checks), String(ev.overall.failures), pct(ev.overall.failure_rate), ms(ev.overall.p50_ms), ms(ev.overall.p95_ms), ms(ev.overall.p99_ms), ms(ev.overall.max_ms)],
    ],
    [0.3, 0.07, 0.08, 0.08, 0.11, 0.09, 0.09, 0.09, 0.09],
  );
  if (ev.changes.length === 0) {
    await w.paragraph('No state change in the window.', { muted: true });
    return;
  }
  await w.paragraph(`State changes (${ev.changes_total}${ev.changes_total > ev.changes.length ? `, first ${ev.changes.length} listed` : ''}):`, { bold: true });
  w.table(
    ['Changed at (UTC)', 'From', 'To', 'Source', 'Reason'],
    ev.changes.map((c) => [c.changed_at.toISOString().replace('T', ' ').slice(0, 19), c.from_state, c.to_state, c.source, c.reason ?? '']),
    [0.2, 0.1, 0.1, 0.1, 0.5],
  );
}

/** The ad-hoc probes of the target in the window: per probe type and node, results, failures and response-time percentiles. */
export async function writeProbeEvidence(w: ReportWriter, probes: { rows: ProbeEvidenceRow[]; results: number; truncated: boolean }): Promise<void> {
  await w.heading('Ad-hoc probes of the target');
  await w.paragraph(
    `${probes.results} probe result${probes.results === 1 ? '' : 's'} of probes you ran from Vantage nodes in the window${probes.truncated ? ' (the first ones; later results are not included)' : ''}. ` +
    'Response time: http response, ping average round trip, dns query, tcp connect, traceroute last answering hop.',
    { muted: true },
  );
  w.table(
    ['Node', 'Country', 'Probe', 'Results', 'Failed', 'Fail rate', 'p50', 'p95', 'p99', 'Max'],
    probes.rows.map((r) => [r.node_id, r.country ?? '-', r.probe_type, String(r.probes), String(r.failures), pct(r.failure_rate), ms(r.p50_ms), ms(r.p95_ms), ms(r.p99_ms), ms(r.max_ms)]),
    [0.29, 0.08, 0.07, 0.08, 0.07, 0.09, 0.08, 0.08, 0.08, 0.08],
  );
}

/** The bilingual disclaimer and how to verify the document (docs/api/verdicts.md "Verification"). */
export async function writeVerification(w: ReportWriter, verify_url: string, keys_url: string): Promise<void> {
  await w.heading('Legal disclaimer / 法律声明');
  await w.paragraph(LEGAL_DISCLAIMER);
  await w.heading('Verification');
  await w.paragraph(
    'This document is signed with an Ed25519 attestation key of this Vantage deployment. The signature, the signing key and the SHA-256 content hash ' +
    'are sealed in the document\'s metadata (the VantageSeal entry); changing any byte of the document invalidates it.',
  );
  await w.paragraph(`Verify it by sending the file to ${verify_url} (POST, the PDF as the request body), or by dropping it on the verification page of the console.`);
  await w.paragraph(`Public keys, including rotated and revoked ones: ${keys_url}`);
}
