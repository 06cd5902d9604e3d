import type { SqlExecutor } from '../contracts.js';

/** A `compliance_subscriptions` row (0073_verdicts_attestation.sql). */
export interface ComplianceSubscriptionRow {
  id: string;
  user_id: string;
  tier: 'starter' | 'pro' | 'enterprise';
  status: 'incomplete' | 'active' | 'past_due' | 'canceled' | 'expired';
  monitors_quota: number;
  monitor_ids: string[];
  reports_frequency: 'monthly' | 'weekly' | 'custom';
  custom_interval_days: number | null;
  history_retention_months: number;
  free_verdict_count: number | null;
  free_verdict_used: number;
  price_cny: string;
  contact_email: string | null;
  contact_company: string | null;
  billing_address: Record<string, unknown> | null;
  charge_id: string | null;
  checkout_url: string;
  period_start: Date | null;
  period_end: Date | null;
  next_report_at: Date | null;
  claimed_until: Date | null;
  canceled_at: Date | null;
  ext_subscription_id: string | null;
  /** The period end the newest renewal charge renews (0091_billing_renewals.sql). */
  renewal_for: Date | null;
  /** That renewal charge (bi_ invoice), until it is paid. */
  renewal_charge_id: string | null;
  created_at: Date;
}

/** A `compliance_reports` row without its PDF. */
export interface ComplianceReportRow {
  id: string;
  subscription_id: string;
  user_id: string;
  report_type: 'observation_only';
  period_start: Date;
  period_end: Date;
  period_year: number;
  period_month: number | null;
  period_week: number | null;
  monitors_included: number;
  content_hash: string;
  signature: string;
  key_id: string;
  tsa_time: Date;
  created_at: Date;
}

const SUB = (ex: SqlExecutor) => ex`id, user_id, tier, status, monitors_quota, monitor_ids, reports_frequency, custom_interval_days, history_retention_months,
  free_verdict_count, free_verdict_used, price_cny::text AS price_cny, contact_email, contact_company, billing_address, charge_id, checkout_url, period_start,
  period_end, next_report_at, claimed_until, canceled_at, ext_subscription_id, renewal_for, renewal_charge_id, created_at`;
const REPORT = (ex: SqlExecutor) => ex`id, subscription_id, user_id, report_type, period_start, period_end, period_year, period_month, period_week,
  monitors_included, content_hash, signature, key_id, tsa_time, created_at`;

export type NewSubscription = Pick<ComplianceSubscriptionRow, 'id' | 'user_id' | 'tier' | 'monitors_quota' | 'monitor_ids' | 'reports_frequency' | 'custom_interval_days'
  | 'history_retention_months' | 'free_verdict_count' | 'contact_email' | 'contact_company' | 'billing_address'> & { price_cny: number };

/** Insert a subscription awaiting payment (`incomplete`). */
export async function insertSubscription(ex: SqlExecutor, s: NewSubscription): Promise<ComplianceSubscriptionRow> {
  const [row] = await ex<ComplianceSubscriptionRow[]>`
    INSERT INTO compliance_subscriptions (id, user_id, tier, status, monitors_quota, monitor_ids, reports_frequency, custom_interval_days, history_retention_months,
      free_verdict_count, price_cny, contact_email, contact_company, billing_address)
    VALUES (${s.id}, ${s.user_id}, ${s.tier}, 'incomplete', ${s.monitors_quota}, ${s.monitor_ids}::text[], ${s.reports_frequency}, ${s.custom_interval_days},
      ${s.history_retention_months}, ${s.free_verdict_count}, ${s.price_cny}, ${s.contact_email}, ${s.contact_company},
      ${s.billing_address === null ? null : ex.json(s.billing_address as never)})
    RETURNING ${SUB(ex)}`;
  return row!;
}

/** Record the checkout charge of a subscription. */
export async function setSubscriptionCheckout(ex: SqlExecutor, id: string, charge_id: string, checkout_url: string): Promise<ComplianceSubscriptionRow> {
  const [row] = await ex<ComplianceSubscriptionRow[]>`UPDATE compliance_subscriptions SET charge_id = ${charge_id}, checkout_url = ${checkout_url} WHERE id = ${id} RETURNING ${SUB(ex)}`;
  return row!;
}

/** incomplete → active for the period [start, end), its first report due at `next_report_at`. @returns whether it moved */
export async function activateSubscription(ex: SqlExecutor, id: string, start: Date, end: Date, next_report_at: Date): Promise<boolean> {
  const rows = await ex`UPDATE compliance_subscriptions SET status = 'active', period_start = ${start}, period_end = ${end}, next_report_at = ${next_report_at}
    WHERE id = ${id} AND status = 'incomplete' RETURNING id`;
  return rows.length > 0;
}

/** One subscription, or null. */
export async function findSubscription(ex: SqlExecutor, id: string): Promise<ComplianceSubscriptionRow | null> {
  const [row] = await ex<ComplianceSubscriptionRow[]>`SELECT ${SUB(ex)} FROM compliance_subscriptions WHERE id = ${id}`;
  return row ?? null;
}

/** The user's subscriptions, newest first. */
export async function listSubscriptions(ex: SqlExecutor, user_id: string): Promise<ComplianceSubscriptionRow[]> {
  return ex<ComplianceSubscriptionRow[]>`SELECT ${SUB(ex)} FROM compliance_subscriptions WHERE user_id = ${user_id} ORDER BY created_at DESC, id DESC`;
}

/**
 * Cancel (from incomplete, active or past_due); its open charges (an unpaid checkout or renewal)
 * void. @returns the row after, or null when already canceled or expired
 */
export async function cancelSubscription(ex: SqlExecutor, id: string): Promise<ComplianceSubscriptionRow | null> {
  const [row] = await ex<ComplianceSubscriptionRow[]>`
    WITH canceled AS (
      UPDATE compliance_subscriptions SET status = 'canceled', canceled_at = now(), next_report_at = NULL, renewal_charge_id = NULL
      WHERE id = ${id} AND status IN ('incomplete', 'active', 'past_due') RETURNING ${SUB(ex)}),
    voided AS (
      UPDATE billing_invoices SET status = 'void' WHERE purpose = 'compliance_subscription' AND status = 'open' AND reference_id IN (SELECT id FROM canceled))
    SELECT * FROM canceled`;
  return row ?? null;
}

/**
 * Claim up to `limit` subscriptions whose report is due at `now` for a period that ended within
 * their paid time (`next_report_at` <= `period_end`: an active one, or a past_due one's last paid
 * period; a report due after it waits for the renewal), for `lease_ms` (SKIP LOCKED: any number
 * of instances).
 */
export async function claimDueSubscriptions(ex: SqlExecutor, now: Date, limit: number, lease_ms: number): Promise<ComplianceSubscriptionRow[]> {
  return ex<ComplianceSubscriptionRow[]>`
    UPDATE compliance_subscriptions SET claimed_until = ${new Date(now.getTime() + lease_ms)}
    WHERE id IN (SELECT id FROM compliance_subscriptions WHERE status IN ('active', 'past_due') AND next_report_at <= ${now} AND next_report_at <= period_end
      AND (claimed_until IS NULL OR claimed_until < ${now}) ORDER BY next_report_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING ${SUB(ex)}`;
}

/**
 * Move subscriptions whose paid period ended (docs/api/compliance.md "Renewal") at `now`:
 * `canceled` with its period over, and `active` / `past_due` more than `grace_days` past its
 * period end, become `expired` (no report is due any more; open charges of the subscription
 * void); `active` with its period over becomes `past_due`. @returns how many moved
 */
export async function advanceComplianceSubscriptions(ex: SqlExecutor, now: Date, grace_days: number): Promise<number> {
  const expired = await ex`
    WITH ended AS (
      UPDATE compliance_subscriptions SET status = 'expired', next_report_at = NULL
      WHERE (status = 'canceled' AND period_end <= ${now})
         OR (status IN ('active', 'past_due') AND period_end + make_interval(days => ${grace_days}) <= ${now})
      RETURNING id),
    voided AS (
      UPDATE billing_invoices SET status = 'void' WHERE purpose = 'compliance_subscription' AND status = 'open' AND reference_id IN (SELECT id FROM ended))
    SELECT id FROM ended`;
  const due = await ex`UPDATE compliance_subscriptions SET status = 'past_due' WHERE status = 'active' AND period_end <= ${now} RETURNING id`;
  return expired.length + due.length;
}

/**
 * Claim up to `limit` active or past_due subscriptions whose period ends within `notice_days` of
 * `now` and whose renewal charge for that period end is not issued yet (`renewal_for` set to the
 * period end; SKIP LOCKED). A claim whose charge never got recorded is taken again after 10 minutes.
 */
export async function claimComplianceRenewals(ex: SqlExecutor, now: Date, notice_days: number, limit: number): Promise<ComplianceSubscriptionRow[]> {
  return ex<ComplianceSubscriptionRow[]>`
    UPDATE compliance_subscriptions SET renewal_for = period_end, renewal_charge_id = NULL, renewal_claimed_at = now()
    WHERE id IN (SELECT id FROM compliance_subscriptions
      WHERE status IN ('active', 'past_due') AND period_end - make_interval(days => ${notice_days}) <= ${now}
        AND (renewal_for IS DISTINCT FROM period_end OR (renewal_charge_id IS NULL AND renewal_claimed_at < now() - interval '10 minutes'))
      ORDER BY period_end LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING ${SUB(ex)}`;
}

/** Record the renewal charge of a claimed subscription; null gives the claim back (retried next pass). */
export async function setRenewalCharge(ex: SqlExecutor, id: string, charge_id: string | null): Promise<void> {
  await ex`UPDATE compliance_subscriptions SET renewal_charge_id = ${charge_id},
             renewal_for = CASE WHEN ${charge_id}::text IS NULL THEN NULL ELSE renewal_for END WHERE id = ${id}`;
}

/**
 * A paid renewal `charge_id`: the next period [period_end, `end`), active again, its free
 * verdicts counted from 0 again. @returns whether it applied
 */
export async function renewSubscription(ex: SqlExecutor, id: string, charge_id: string, end: Date): Promise<boolean> {
  const rows = await ex`UPDATE compliance_subscriptions SET status = 'active', period_start = period_end, period_end = ${end}, renewal_charge_id = NULL,
      free_verdict_used = 0
    WHERE id = ${id} AND renewal_charge_id = ${charge_id} AND status IN ('active', 'past_due') RETURNING id`;
  return rows.length > 0;
}

/**
 * Take one free verdict of the account's active compliance subscriptions (docs/api/compliance.md
 * "Free verdicts"), atomically inside `tx` (the row stays locked until it ends): a subscription with
 * a count left (limited ones first, the one whose month ends first), else an unlimited one
 * (`free_verdict_count` null). @returns its id (cs_), or null when none has one left
 */
export async function takeFreeVerdict(tx: SqlExecutor, user_id: string): Promise<string | null> {
  const [row] = await tx<{ id: string }[]>`
    UPDATE compliance_subscriptions SET free_verdict_used = free_verdict_used + 1
    WHERE id = (SELECT id FROM compliance_subscriptions
                WHERE user_id = ${user_id} AND status = 'active' AND (free_verdict_count IS NULL OR free_verdict_used < free_verdict_count)
                ORDER BY free_verdict_count IS NULL, period_end, id LIMIT 1 FOR UPDATE)
      AND (free_verdict_count IS NULL OR free_verdict_used < free_verdict_count)
    RETURNING id`;
  return row?.id ?? null;
}

/** Store a signed report and move the subscription's next report to `next_report_at`, releasing the claim. Idempotent per period. */
export async function storeReport(ex: SqlExecutor, r: Omit<ComplianceReportRow, 'created_at' | 'report_type'> & { pdf: Buffer }, next_report_at: Date): Promise<void> {
  await ex`INSERT INTO compliance_reports (id, subscription_id, user_id, period_start, period_end, period_year, period_month, period_week, monitors_included, pdf,
      content_hash, signature, key_id, tsa_time)
    VALUES (${r.id}, ${r.subscription_id}, ${r.user_id}, ${r.period_start}, ${r.period_end}, ${r.period_year}, ${r.period_month}, ${r.period_week}, ${r.monitors_included},
      ${r.pdf}, ${r.content_hash}, ${r.signature}, ${r.key_id}, ${r.tsa_time})
    ON CONFLICT (subscription_id, period_start) DO NOTHING`;
  await ex`UPDATE compliance_subscriptions SET next_report_at = ${next_report_at}, claimed_until = NULL WHERE id = ${r.subscription_id}`;
}

/** Release a claim after a failed attempt (retried on a later pass). */
export async function releaseSubscription(ex: SqlExecutor, id: string): Promise<void> {
  await ex`UPDATE compliance_subscriptions SET claimed_until = NULL WHERE id = ${id}`;
}

/** The user's reports (optionally of one subscription), newest first, at most `limit`. */
export async function listReports(ex: SqlExecutor, user_id: string, subscription_id: string | null, limit: number): Promise<ComplianceReportRow[]> {
  return ex<ComplianceReportRow[]>`SELECT ${REPORT(ex)} FROM compliance_reports WHERE user_id = ${user_id}
    ${subscription_id ? ex`AND subscription_id = ${subscription_id}` : ex``} ORDER BY created_at DESC, id DESC LIMIT ${limit}`;
}

/** One report (without its PDF), or null. */
export async function findReport(ex: SqlExecutor, id: string): Promise<ComplianceReportRow | null> {
  const [row] = await ex<ComplianceReportRow[]>`SELECT ${REPORT(ex)} FROM compliance_reports WHERE id = ${id}`;
  return row ?? null;
}

/** A report's signed PDF. */
export async function reportPdf(ex: SqlExecutor, id: string): Promise<Buffer | null> {
  const [row] = await ex<{ pdf: Buffer }[]>`SELECT pdf FROM compliance_reports WHERE id = ${id}`;
  return row?.pdf ?? null;
}

/** How many of `ids` are monitors of `user_id`. */
export async function countOwnMonitors(ex: SqlExecutor, user_id: string, ids: string[]): Promise<number> {
  const [row] = await ex<{ n: number }[]>`SELECT count(*)::int AS n FROM monitors WHERE user_id = ${user_id} AND id = ANY(${ids}::text[])`;
  return row!.n;
}
