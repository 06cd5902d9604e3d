import { newId } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import type { Logger } from '../log.js';
import { ATTESTATION_RETRIES_MAX, signReport } from '../attestation/sign.js';
import { gatherEvidence } from '../verdicts/evidence.js';
import { claimDueSubscriptions, releaseSubscription, storeReport, type ComplianceSubscriptionRow } from './compliance.db.js';
import { periodEndAfter, periodEndingAt } from './periods.js';
import { renderCompliancePdf } from './report-pdf.js';
import { runComplianceRenewals } from './renewals.js';

const LEASE_MS = 10 * 60_000;
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

type JobDeps = Pick<AppDeps, 'sql' | 'config'> & { log: Logger };

/** Generate, sign and store the report of the period ending at the subscription's `next_report_at`, and schedule the next. */
async function reportOne(deps: JobDeps, sub: ComplianceSubscriptionRow, now: Date): Promise<void> {
  const end = sub.next_report_at!;
  const p = periodEndingAt(sub.reports_frequency, end, sub.custom_interval_days);
  const label = p.month ? `${MONTHS[p.month - 1]} ${p.year}` : p.week ? `${p.year} week ${p.week}` : `${p.start.toISOString().slice(0, 10)} to ${end.toISOString().slice(0, 10)}`;
  const monitors = await deps.sql<Array<{ id: string; name: string; type: string; target: string }>>`
    SELECT id, name, type, target FROM monitors WHERE id = ANY(${sub.monitor_ids}::text[]) AND user_id = ${sub.user_id} ORDER BY created_at, id`;
  const evidence = await gatherEvidence(deps.sql, deps.config, monitors, p.start, end, now);
  const id = newId('compliance_report');
  const pdf = await renderCompliancePdf(deps.config, id, sub, { start: p.start, end, label }, evidence, now);
  let signed;
  for (let attempt = 0; ; attempt++) {
    try {
      signed = await signReport(deps, id, pdf, attempt, now);
      break;
    } catch (err) {
      if (attempt >= ATTESTATION_RETRIES_MAX) throw err;
    }
  }
  const next = periodEndAfter(sub.reports_frequency, end, sub.period_start ?? end, sub.custom_interval_days);
  await storeReport(deps.sql, {
    id, subscription_id: sub.id, user_id: sub.user_id, period_start: p.start, period_end: end, period_year: p.year, period_month: p.month, period_week: p.week,
    monitors_included: monitors.length, pdf: signed.pdf, content_hash: signed.content_hash, signature: signed.signature, key_id: signed.key_id, tsa_time: signed.signed_at,
  }, next);
}

/**
 * One pass of the compliance report job at `now`: every active subscription whose report is due
 * is claimed (SKIP LOCKED with a lease: any number of instances) and its period's report
 * generated, signed (attestation/sign.ts, up to 3 retries) and stored; a subscription several
 * periods behind catches up one period per pass. @returns how many reports were written
 */
export async function runComplianceReports(deps: JobDeps, now: Date = new Date(), batch = 4): Promise<number> {
  let written = 0;
  for (const sub of await claimDueSubscriptions(deps.sql, now, batch, LEASE_MS)) {
    try {
      await reportOne(deps, sub, now);
      written++;
    } catch (err) {
      deps.log.warn({ err, subscription_id: sub.id }, 'compliance report failed');
      await releaseSubscription(deps.sql, sub.id);
    }
  }
  return written;
}

/** The compliance renewals (renewals.ts) then the report job, every `every_ms` (default 60 s) until stopped. */
export function startComplianceJobs(deps: JobDeps, every_ms = 60_000): { stop(): Promise<void> } {
  const log = deps.log.child({ module: 'compliance.jobs' });
  const job = { ...deps, log };
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = runComplianceRenewals(job).then((r) => { if (r.moved + r.invoiced > 0) log.info(r, 'compliance subscriptions renewed or moved'); })
      .then(() => runComplianceReports(job)).then((n) => { if (n > 0) log.info({ reports: n }, 'compliance reports written'); })
      .catch((err) => log.warn({ err }, 'compliance report pass failed'))
      .finally(() => { running = null; });
  }, every_ms);
  timer.unref();
  return { async stop() { clearInterval(timer); await running; } };
}
