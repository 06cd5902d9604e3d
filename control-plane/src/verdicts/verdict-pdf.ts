import type { Config } from '../config/index.js';
import { ReportWriter } from '../attestation/pdf-writer.js';
import { publicLink } from '../email/links.js';
import type { MonitorEvidence } from './evidence.js';
import type { gatherProbeEvidence } from './probe-evidence.js';
import { writeMonitorEvidence, writeProbeEvidence, writeVerification } from './report-sections.js';
import type { VerdictOrderRow } from './verdicts.db.js';

const TITLES: Record<string, string> = {
  uptime_sla: 'Availability (uptime SLA) report',
  outage_window: 'Outage window report',
  dns_consistency: 'DNS consistency report',
};

/**
 * The unsigned PDF of a verdict order (with the seal slot: attestation/seal.ts): the target and
 * window, each monitor's observations (uptime and rounds, per-node checks, failures and rtt
 * percentiles, state changes), the customer's ad-hoc probes of the target in the window (per
 * type and node), the bilingual legal disclaimer and the verification section.
 */
export async function renderVerdictPdf(
  config: Config, order: VerdictOrderRow, evidence: MonitorEvidence[], probes: Awaited<ReturnType<typeof gatherProbeEvidence>>, generated_at: Date,
): Promise<Uint8Array> {
  const w = await ReportWriter.create(`Vantage ${order.template} report ${order.id}`, `Vantage verdict report ${order.id} - observation data, not a forensic conclusion`, generated_at);
  await w.heading(TITLES[order.template] ?? order.template, 1);
  await w.paragraph(`Report ${order.id}, generated ${generated_at.toISOString()} (UTC). Report type: observation_only.`, { muted: true });
  w.table(['Field', 'Value'], [
    ['Target', order.target],
    ['Window start (UTC)', order.time_window_start.toISOString()],
    ['Window end (UTC)', order.time_window_end.toISOString()],
    ['Template', order.template],
    ['Monitors observed', String(evidence.length)],
    ['Ad-hoc probe results', String(probes.results)],
  ], [0.3, 0.7]);
  if (order.notes) await w.paragraph(`Notes: ${order.notes}`);
  if (evidence.length === 0) await w.paragraph('No scheduled monitor of yours covers the target: the report shows the ad-hoc probes you ran in the window.', { muted: true });
  for (const ev of evidence) await writeMonitorEvidence(w, ev);
  if (probes.results > 0) await writeProbeEvidence(w, probes);
  await writeVerification(w, publicLink(config, '/v1/attest/verify'), publicLink(config, '/v1/attest/keys'));
  return w.finish();
}
