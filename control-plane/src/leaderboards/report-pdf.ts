import { LEGAL_DISCLAIMER } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import { ReportWriter } from '../attestation/pdf-writer.js';
import { publicLink } from '../email/links.js';
import { formatUptime, writeVerification } from '../verdicts/report-sections.js';
import type { LeaderboardReportRow } from './leaderboards.db.js';

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const ms = (v: number | null) => (v === null ? '-' : `${Math.round(v)} ms`);

/** "October 2026" for a report's period. */
export const periodLabel = (r: Pick<LeaderboardReportRow, 'period_year' | 'period_month'>) => `${MONTHS[r.period_month - 1]} ${r.period_year}`;

/** The figures of `r`: a ranked table per category, then each vendor's latency by region. */
async function writeFigures(w: ReportWriter, r: LeaderboardReportRow): Promise<void> {
  const categories = [...new Set(r.entries.map((e) => e.category))];
  if (categories.length === 0) await w.paragraph('No leaderboard monitor had data in this period.', { muted: true });
  for (const category of categories) {
    const rows = r.entries.filter((e) => e.category === category);
    await w.heading(`Category: ${category}`);
    w.table(['#', 'Vendor', 'Uptime', 'Incidents', 'p50', 'p95', 'Checks'],
      rows.map((e) => [String(e.rank), e.vendor_name, formatUptime(e.uptime), String(e.incidents), ms(e.p50_ms), ms(e.p95_ms), String(e.checks)]),
      [0.06, 0.34, 0.12, 0.12, 0.12, 0.12, 0.12]);
    for (const e of rows.filter((x) => x.regions.length > 0)) {
      await w.paragraph(`${e.vendor_name}: latency by region`, { bold: true });
      w.table(['Country', 'Checks', 'p50', 'p95'], e.regions.map((g) => [g.country ?? 'unknown', String(g.checks), ms(g.p50_ms), ms(g.p95_ms)]), [0.4, 0.2, 0.2, 0.2]);
    }
  }
}

/** The common head: title, id, period, data range, methodology, exclusions. */
async function writeHead(w: ReportWriter, r: LeaderboardReportRow, title: string, generated_at: Date): Promise<void> {
  await w.heading(title, 1);
  await w.paragraph(`Report ${r.id}, generated ${generated_at.toISOString()} (UTC). Report type: observation_only.`, { muted: true });
  w.table(['Field', 'Value'], [
    ['Period', periodLabel(r)],
    ['Data from (UTC)', r.data_from.toISOString()],
    ['Data to (UTC)', r.data_to.toISOString()],
    ['Methodology version', r.methodology_version],
    ['Vendors ranked', String(r.entries.length)],
    ['Excluded vendors (opt-out)', r.excluded_vendors.join(', ') || 'none'],
  ], [0.35, 0.65]);
}

/**
 * The unsigned PDF (with the seal slot: attestation/seal.ts) of leaderboard report `r`: the head,
 * the ranked figures per category with each vendor's latency by region, the methodology note, the
 * bilingual disclaimer and the verification section.
 */
export async function renderLeaderboardPdf(config: Config, r: LeaderboardReportRow, generated_at: Date): Promise<Uint8Array> {
  const w = await ReportWriter.create(`Vantage leaderboard ${periodLabel(r)} (${r.id})`, `Vantage leaderboard ${r.id} - observation data, not a forensic conclusion`, generated_at);
  await writeHead(w, r, `Vendor leaderboard: ${periodLabel(r)}`, generated_at);
  await writeFigures(w, r);
  await w.heading('Methodology');
  await w.paragraph(`Uptime is the share of monitored time (rounds with data) in which the vendor's leaderboard monitors were up or degraded; incidents are down spells; latency percentiles are over every check, overall and by the probe node's country. Vendors are ranked within their category by uptime, then p95. Methodology ${r.methodology_version}.`);
  await w.paragraph(LEGAL_DISCLAIMER, { muted: true });
  await writeVerification(w, publicLink(config, '/v1/attest/verify'), publicLink(config, '/v1/attest/keys'));
  return w.finish();
}

/**
 * The unsigned errata notice of published report `r`: which report it corrects (and the content
 * hash of the signed original), why, and the figures recomputed now (`corrected`).
 */
export async function renderErrataPdf(config: Config, r: LeaderboardReportRow, reason: string, corrected: LeaderboardReportRow, generated_at: Date): Promise<Uint8Array> {
  const w = await ReportWriter.create(`Vantage leaderboard errata ${r.id}`, `Vantage leaderboard ${r.id} errata notice - observation data, not a forensic conclusion`, generated_at);
  await writeHead(w, corrected, `Errata notice: leaderboard ${periodLabel(r)}`, generated_at);
  await w.paragraph(`This notice corrects report ${r.id} published ${r.published_at?.toISOString() ?? '-'} (content hash ${r.content_hash ?? '-'}). The original stays published and unchanged.`);
  await w.heading('Reason for the correction');
  await w.paragraph(reason);
  await w.heading('Corrected figures');
  await writeFigures(w, corrected);
  await w.paragraph(LEGAL_DISCLAIMER, { muted: true });
  await writeVerification(w, publicLink(config, '/v1/attest/verify'), publicLink(config, '/v1/attest/keys'));
  return w.finish();
}
