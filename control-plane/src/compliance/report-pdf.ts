import type { Config } from '../config/index.js';
import { ReportWriter } from '../attestation/pdf-writer.js';
import { publicLink } from '../email/links.js';
import type { MonitorEvidence } from '../verdicts/evidence.js';
import { formatUptime, writeMonitorEvidence, writeVerification } from '../verdicts/report-sections.js';
import type { ComplianceSubscriptionRow } from './compliance.db.js';

/**
 * The unsigned PDF of a compliance report: the subscription and period, a summary line per
 * monitor (uptime, incidents, checks, failures), then each monitor's evidence, the bilingual
 * disclaimer and the verification section. Report type observation_only.
 */
export async function renderCompliancePdf(config: Config, report_id: string, sub: ComplianceSubscriptionRow, period: { start: Date; end: Date; label: string }, evidence: MonitorEvidence[], generated_at: Date): Promise<Uint8Array> {
  const w = await ReportWriter.create(`Vantage compliance report ${report_id}`, `Vantage compliance report ${report_id} - observation data, not a forensic conclusion`, generated_at);
  await w.heading(`Compliance report: ${period.label}`, 1);
  await w.paragraph(`Report ${report_id}, generated ${generated_at.toISOString()} (UTC). Report type: observation_only.`, { muted: true });
  w.table(['Field', 'Value'], [
    ['Subscription', `${sub.id} (${sub.tier}, ${sub.reports_frequency})`],
    ['Period start (UTC)', period.start.toISOString()],
    ['Period end (UTC)', period.end.toISOString()],
    ['Monitors included', String(evidence.length)],
  ], [0.3, 0.7]);
  await w.heading('Summary');
  w.table(['Monitor', 'Uptime', 'Incidents', 'Checks', 'Failures'],
    evidence.map((e) => [e.monitor_id, formatUptime(e.uptime.uptime), String(e.uptime.incidents), String(e.overall.checks), String(e.overall.failures)]),
    [0.52, 0.12, 0.12, 0.12, 0.12]);
  for (const ev of evidence) await writeMonitorEvidence(w, ev);
  await writeVerification(w, publicLink(config, '/v1/attest/verify'), publicLink(config, '/v1/attest/keys'));
  return w.finish();
}
