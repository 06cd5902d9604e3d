import t from 'tap';
import { call, registerUser, testApp } from '../test-support/app.js';
import { runBillingRenewals } from './renewal-job.js';

/*
 * Renewals of manual plan subscriptions (docs/api/billing.md "Renewals") on a real database, the
 * job run with a controlled clock: one renewal invoice per period, issued within the notice; paying
 * it extends the period without a gap; unpaid, the subscription is past_due at its period end
 * (plan kept) and expired after the grace (plan gone, invoice void); canceled ends at the period end.
 */

const DAY = 86_400_000;

t.test('manual subscription: renewal invoice, paid renewal, past_due, expired; cancel then expired', async (t) => {
  const { app, sql, deps } = await testApp(t, { config: { plan: 'free', billing_renewal_notice_days: 7, billing_grace_days: 7, billing_period_days: 30 } });
  const admin = await registerUser(app, 'root@example.test');
  const u = await registerUser(app, 'renewing@example.test');
  const token = u.access_token;
  const get = async () => (await call(app, 'GET', '/v1/billing/subscription', { token })).body.data;
  const invoices = async () => (await call(app, 'GET', '/v1/billing/invoices', { token })).body.data.items as Array<{ id: string; status: string; amount: number; description: string }>;
  const markPaid = (id: string) => call(app, 'POST', `/v1/admin/billing/invoices/${id}/mark-paid`, { token: admin.access_token });

  t.equal((await call(app, 'POST', '/v1/billing/subscribe', { token, body: { plan: 'pro' } })).status, 200);
  const [first] = await invoices();
  t.equal((await markPaid(first!.id)).status, 200);
  const active = await get();
  t.match(active, { plan: 'pro', status: 'active' });
  const end1 = Date.parse(active.current_period_end);

  // Outside the notice: nothing. Within it: one invoice of the plan's price, once.
  t.match(await runBillingRenewals(deps, new Date(end1 - 8 * DAY)), { moved: 0, invoiced: 0 }, '8 days before the end: not yet');
  t.match(await runBillingRenewals(deps, new Date(end1 - 6 * DAY)), { moved: 0, invoiced: 1 }, 'within the 7-day notice: one invoice');
  t.match(await runBillingRenewals(deps, new Date(end1 - 5 * DAY)), { moved: 0, invoiced: 0 }, 'one invoice per period');
  const renewal = (await invoices()).find((i) => i.status === 'open')!;
  t.match(renewal, { amount: 1900, description: /renewal from/ });
  t.equal((await get()).status, 'active', 'still active while the period runs');

  // Paid: the next period follows the paid one without a gap.
  t.equal((await markPaid(renewal.id)).status, 200);
  const extended = await get();
  t.match(extended, { status: 'active', plan: 'pro' });
  const end2 = Date.parse(extended.current_period_end);
  t.equal(end2, end1 + 30 * DAY, 'period extended by 30 days from the old end');

  // The next renewal is not paid: past_due at the end (plan kept), expired after the grace.
  t.match(await runBillingRenewals(deps, new Date(end2 - 6 * DAY)), { moved: 0, invoiced: 1 });
  const unpaid = (await invoices()).find((i) => i.status === 'open')!;
  t.match(await runBillingRenewals(deps, new Date(end2 + 1000)), { moved: 1, invoiced: 0 }, 'active → past_due at the period end');
  const [row] = await sql<{ status: string }[]>`SELECT status FROM billing_subscriptions WHERE user_id = ${u.user_id} AND status <> 'expired'`;
  t.equal(row!.status, 'past_due');
  const usage = (await call(app, 'GET', '/v1/billing/usage', { token })).body.data;
  t.equal(usage.plan, 'pro', 'past_due keeps the plan during the grace');
  t.match(await runBillingRenewals(deps, new Date(end2 + 6 * DAY)), { moved: 0, invoiced: 0 }, 'still in the grace');
  t.match(await runBillingRenewals(deps, new Date(end2 + 7 * DAY + 1000)), { moved: 1, invoiced: 0 }, 'past_due → expired after the grace');
  t.match(await get(), { status: 'expired', plan: 'free' });
  t.equal((await invoices()).find((i) => i.id === unpaid.id)!.status, 'void', 'the unpaid renewal is void');
  t.equal((await markPaid(unpaid.id)).status, 409, 'a void invoice cannot be paid');
  t.match(await get(), { status: 'expired' }, 'and nothing comes back');

  // Canceled: no renewal invoice; expired at the end of the paid period.
  const v = await registerUser(app, 'canceling@example.test');
  t.equal((await call(app, 'POST', '/v1/billing/subscribe', { token: v.access_token, body: { plan: 'business' } })).status, 200);
  const [vInvoice] = (await call(app, 'GET', '/v1/billing/invoices', { token: v.access_token })).body.data.items;
  await markPaid(vInvoice.id);
  const canceled = (await call(app, 'POST', '/v1/billing/subscription/cancel', { token: v.access_token })).body.data;
  t.match(canceled, { status: 'canceled', plan: 'business' });
  const vEnd = Date.parse(canceled.current_period_end);
  t.match(await runBillingRenewals(deps, new Date(vEnd - DAY)), { moved: 0, invoiced: 0 }, 'a canceled subscription is not renewed');
  t.match(await runBillingRenewals(deps, new Date(vEnd + 1000)), { moved: 1, invoiced: 0 }, 'canceled → expired at the period end');
  const [vRow] = await sql<{ status: string }[]>`SELECT status FROM billing_subscriptions WHERE user_id = ${v.user_id}`;
  t.equal(vRow!.status, 'expired');
});
