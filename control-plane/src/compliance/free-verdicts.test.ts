import t from 'tap';
import { call, registerUser, testApp } from '../test-support/app.js';
import { seedMonitor, seedNodes } from '../checks/test-support.js';
import { settleInvoice } from '../billing/payment-api.js';
import { runComplianceRenewals } from './renewals.js';

/*
 * Free verdicts of a compliance subscription (docs/api/compliance.md "Free verdicts") on a real
 * database: a pro subscription's 5 free verdicts pay verdict orders by credit, at their edge the
 * next order needs a charge (or a report pack), a paid renewal counts them from 0 again; an
 * enterprise subscription's are unlimited; an incomplete subscription gives none.
 */

const DAY = 86_400_000;
const HOUR = 3_600_000;

t.test('pro: 5 free verdicts, then a charge; renewal resets them; enterprise unlimited', async (t) => {
  const { app, sql, deps } = await testApp(t, { config: { billing_renewal_notice_days: 7 } });
  await registerUser(app); // the deployment's administrator
  const alice = await registerUser(app);
  const token = alice.access_token;
  const [node] = await seedNodes(sql, 1);
  await seedMonitor(sql, { user_id: alice.user_id, nodes: [node!], interval_s: 60 });
  const now = Date.now();
  const order = (extra: Record<string, unknown> = {}) => call(app, 'POST', '/v1/verdict/orders', { token, body: {
    template: 'outage_window', target: 'example.com', time_window_start: new Date(now - 2 * HOUR).toISOString(), time_window_end: new Date(now).toISOString(), ...extra,
  } });
  const pay = async (id: string) => {
    const [row] = await sql<{ charge_id: string }[]>`SELECT charge_id FROM compliance_subscriptions WHERE id = ${id}`;
    await sql.begin((tx) => settleInvoice(tx, row!.charge_id));
  };
  const used = async (id: string) => (await call(app, 'GET', `/v1/compliance/subscriptions/${id}`, { token })).body.data.free_verdict_used as number;

  const pro = (await call(app, 'POST', '/v1/compliance/subscriptions', { token, body: { tier: 'pro' } })).body.data.subscription;
  t.match((await order()).body.data, { payment_method: 'charge' }, 'an incomplete subscription gives no free verdict');
  await pay(pro.id);
  for (let i = 1; i <= 5; i++) {
    const r = await order();
    t.equal(r.status, 201, JSON.stringify(r.body));
    t.match(r.body.data, { payment_method: 'report_credit', pay_url: '' }, `free verdict ${i}`);
  }
  t.equal(await used(pro.id), 5);
  const [sourced] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM verdict_orders WHERE entitlement_id = ${pro.id} AND status = 'paid'`;
  t.equal(sourced!.n, 5, 'each free order names the subscription it took from and is paid at once');
  const sixth = await order({ payment_method: 'report_credit' });
  t.equal(sixth.status, 402);
  t.equal(sixth.body.error.code, 'BILLING_INSUFFICIENT_CREDITS');
  t.match((await order()).body.data, { payment_method: 'charge' }, 'past the count: a charge');
  t.equal(await used(pro.id), 5, 'refused and charged orders take nothing');

  // A paid renewal counts them from 0 again.
  const end = Date.parse((await call(app, 'GET', `/v1/compliance/subscriptions/${pro.id}`, { token })).body.data.period_end);
  t.same(await runComplianceRenewals(deps, new Date(end - DAY)), { moved: 0, invoiced: 1 });
  const [renewal] = await sql<{ renewal_charge_id: string }[]>`SELECT renewal_charge_id FROM compliance_subscriptions WHERE id = ${pro.id}`;
  await sql.begin((tx) => settleInvoice(tx, renewal!.renewal_charge_id));
  t.equal(await used(pro.id), 0, 'a new month, five again');
  t.match((await order()).body.data, { payment_method: 'report_credit' });

  // Enterprise: unlimited (free_verdict_count null), used after the limited ones.
  const ent = (await call(app, 'POST', '/v1/compliance/subscriptions', { token, body: { tier: 'enterprise' } })).body.data.subscription;
  await pay(ent.id);
  for (let i = 0; i < 4; i++) t.match((await order()).body.data, { payment_method: 'report_credit' });
  t.equal(await used(pro.id), 5, 'the limited subscription first');
  for (let i = 0; i < 3; i++) t.match((await order()).body.data, { payment_method: 'report_credit' });
  t.equal(await used(ent.id), 3, 'then the unlimited one, without end');
});
