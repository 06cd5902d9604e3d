import t from 'tap';
import { call, registerUser, testApp } from '../test-support/app.js';
import { seedMonitor, seedNodes } from '../checks/test-support.js';
import { settleInvoice } from '../billing/payment-api.js';
import { monthAfter } from './periods.js';
import { runComplianceRenewals } from './renewals.js';
import { runComplianceReports } from './report-job.js';

/*
 * Compliance subscription renewal (docs/api/compliance.md "Renewal") on a real database with a
 * controlled clock: incomplete → active (checkout paid) → one renewal charge per month within the
 * notice → paid: active for the next calendar month → unpaid: past_due at the period end (reports
 * of paid periods still written, a report due after the paid time held) → expired after the grace
 * (no report any more, the charge void); and canceled → expired at its period end.
 */

const DAY = 86_400_000;

t.test('compliance subscription through incomplete, active, past_due, expired; canceled, expired', async (t) => {
  const { app, sql, deps } = await testApp(t, { config: { billing_renewal_notice_days: 7, billing_grace_days: 7 } });
  await registerUser(app); // the deployment's administrator
  const alice = await registerUser(app);
  const token = alice.access_token;
  const [node] = await seedNodes(sql, 1);
  const m = await seedMonitor(sql, { user_id: alice.user_id, nodes: [node!], interval_s: 60 });
  const sub0 = (await call(app, 'POST', '/v1/compliance/subscriptions', { token, body: { tier: 'starter', monitor_ids: [m.monitor_id] } })).body.data.subscription;
  t.equal(sub0.status, 'incomplete');
  const read = async () => (await call(app, 'GET', `/v1/compliance/subscriptions/${sub0.id}`, { token })).body.data;
  const chargeOf = async () => (await sql<{ renewal_charge_id: string | null; charge_id: string }[]>`SELECT renewal_charge_id, charge_id FROM compliance_subscriptions WHERE id = ${sub0.id}`)[0]!;
  const invoiceStatus = async (id: string) => (await sql<{ status: string }[]>`SELECT status FROM billing_invoices WHERE id = ${id}`)[0]!.status;
  const reports = async () => (await call(app, 'GET', '/v1/compliance/reports', { token })).body.data as Array<{ period_month: number; period_year: number }>;

  t.same(await runComplianceRenewals(deps, new Date()), { moved: 0, invoiced: 0 }, 'an incomplete subscription is not renewed');
  const { charge_id } = await chargeOf();
  await sql.begin((tx) => settleInvoice(tx, charge_id));
  const active = await read();
  t.equal(active.status, 'active');
  const end1 = new Date(active.period_end);
  t.equal(end1.getTime(), monthAfter(new Date(active.period_start)).getTime(), 'a calendar month');

  // One renewal charge per period, within the notice; paid → the next month, without a gap.
  t.same(await runComplianceRenewals(deps, new Date(end1.getTime() - 8 * DAY)), { moved: 0, invoiced: 0 });
  t.same(await runComplianceRenewals(deps, new Date(end1.getTime() - 6 * DAY)), { moved: 0, invoiced: 1 });
  t.same(await runComplianceRenewals(deps, new Date(end1.getTime() - 5 * DAY)), { moved: 0, invoiced: 0 }, 'once per period');
  const renewal1 = (await chargeOf()).renewal_charge_id!;
  const [inv] = await sql<{ amount_cents: string; currency: string; purpose: string }[]>`SELECT amount_cents, currency, purpose FROM billing_invoices WHERE id = ${renewal1}`;
  t.match(inv, { amount_cents: '29900', currency: 'cny', purpose: 'compliance_subscription' }, 'the tier\'s monthly price');
  await sql.begin((tx) => settleInvoice(tx, renewal1));
  const renewed = await read();
  t.match(renewed, { status: 'active', period_start: end1.toISOString(), period_end: monthAfter(end1).toISOString() });
  t.equal((await chargeOf()).renewal_charge_id, null);
  const end2 = monthAfter(end1);

  // The next renewal is left unpaid: past_due at the end; the reports of the paid time are still
  // written (one period per pass), a report due after it is held; expired after the grace.
  t.same(await runComplianceRenewals(deps, new Date(end2.getTime() - 6 * DAY)), { moved: 0, invoiced: 1 });
  const renewal2 = (await chargeOf()).renewal_charge_id!;
  t.same(await runComplianceRenewals(deps, new Date(end2.getTime() + 1000)), { moved: 1, invoiced: 0 });
  t.equal((await read()).status, 'past_due');
  let written = 0;
  for (let pass = 0; pass < 4; pass++) written += await runComplianceReports(deps, new Date(end2.getTime() + 1000));
  const paidReports = await reports();
  t.ok(written >= 2 && written === paidReports.length, `the reports of two paid months are written (${written})`);
  const held = (await read()).next_report_at;
  t.ok(Date.parse(held) > end2.getTime(), 'the next report is due after the paid time');
  t.equal(await runComplianceReports(deps, new Date(Date.parse(held) + 60_000)), 0, 'held while past_due');
  t.same(await runComplianceRenewals(deps, new Date(end2.getTime() + 7 * DAY + 1000)), { moved: 1, invoiced: 0 });
  t.match(await read(), { status: 'expired', next_report_at: null });
  t.equal(await invoiceStatus(renewal2), 'void', 'the unpaid renewal charge is void');
  t.equal(await sql.begin((tx) => settleInvoice(tx, renewal2)), null, 'and cannot be paid');
  t.equal(await runComplianceReports(deps, new Date(end2.getTime() + 40 * DAY)), 0, 'no report once expired');
  t.equal((await reports()).length, paidReports.length);

  // Canceled: no renewal, expired at the end of the paid month.
  const sub1 = (await call(app, 'POST', '/v1/compliance/subscriptions', { token, body: { tier: 'starter' } })).body.data.subscription;
  const [c1] = await sql<{ charge_id: string }[]>`SELECT charge_id FROM compliance_subscriptions WHERE id = ${sub1.id}`;
  await sql.begin((tx) => settleInvoice(tx, c1!.charge_id));
  const canceled = (await call(app, 'POST', `/v1/compliance/subscriptions/${sub1.id}/cancel`, { token })).body.data;
  t.equal(canceled.status, 'canceled');
  const cEnd = Date.parse(canceled.period_end);
  t.same(await runComplianceRenewals(deps, new Date(cEnd - DAY)), { moved: 0, invoiced: 0 }, 'a canceled subscription is not renewed');
  t.same(await runComplianceRenewals(deps, new Date(cEnd + 1000)), { moved: 1, invoiced: 0 });
  t.equal((await call(app, 'GET', `/v1/compliance/subscriptions/${sub1.id}`, { token })).body.data.status, 'expired');
});
