import t from 'tap';
import { eventually } from '../delivery/test-support.js';
import { startSmtpServer } from '../email/test-support.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { runBillingRenewals } from './renewal-job.js';

/*
 * Renewal e-mails of a manual plan subscription (docs/api/billing.md "Renewal e-mails") through the
 * real delivery engine to a real SMTP server on loopback, the renewal job run with a controlled
 * clock: the renewal invoice (amount, currency, due date, the console's invoice page, how the
 * manual provider is paid), past_due, expired (the plan the account falls back to), and a
 * canceled subscription's end; each e-mail once, to the subscription's owner, also when two
 * instances run the pass at once; passes with nothing new send nothing.
 */

const DAY = 86_400_000;

t.test('renewal invoice, past_due and expired e-mails, each once, to the owner', async (t) => {
  const smtp = await startSmtpServer(t);
  const { app, sql, deps } = await testApp(t, {
    config: {
      plan: 'free', smtp_url: smtp.smtp_url, delivery_poll_interval_ms: 50, public_url: 'https://vantage.example.test',
      billing_renewal_notice_days: 7, billing_grace_days: 7, billing_period_days: 30, billing_currency: 'eur', billing_price_pro_cents: 2450,
    },
    delivery: true,
  });
  const admin = await registerUser(app, 'root@example.test');
  const u = await registerUser(app, 'renewing@example.test');
  await registerUser(app, 'bystander@example.test');
  const token = u.access_token;
  const invoices = async () => (await call(app, 'GET', '/v1/billing/invoices', { token })).body.data.items as Array<{ id: string; status: string }>;
  t.equal((await call(app, 'POST', '/v1/billing/subscribe', { token, body: { plan: 'pro' } })).status, 200);
  const [first] = await invoices();
  t.equal((await call(app, 'POST', `/v1/admin/billing/invoices/${first!.id}/mark-paid`, { token: admin.access_token })).status, 200);
  const end = Date.parse((await call(app, 'GET', '/v1/billing/subscription', { token })).body.data.current_period_end);
  const endIso = new Date(end).toISOString();
  // Renewal e-mails only (registration sends its own); `one(kind)` waits for the first of a kind.
  const billingMails = () => smtp.messages.filter((m) => /^Vantage (Pro|Business): /.test(m.parsed.subject ?? ''));
  const one = (kind: RegExp) => eventually(`the ${kind.source} e-mail`, () => billingMails().find((m) => kind.test(m.parsed.subject ?? '')) ?? null);

  t.match(await runBillingRenewals(deps, new Date(end - 8 * DAY)), { invoiced: 0, notified: 0 }, 'outside the notice: nothing');

  // The renewal invoice: one e-mail with its figures, also when two instances pass at once.
  const [a, b] = await Promise.all([runBillingRenewals(deps, new Date(end - 6 * DAY)), runBillingRenewals(deps, new Date(end - 6 * DAY))]);
  t.equal(a.invoiced + b.invoiced, 1, 'one renewal invoice');
  t.equal(a.notified + b.notified, 1, 'one e-mail between the two instances');
  const renewal = (await invoices()).find((i) => i.status === 'open')!;
  const issued = await one(/renewal invoice/);
  t.same(issued.to, [u.email], 'to the subscription\'s owner');
  t.equal(issued.parsed.subject, `Vantage Pro: renewal invoice of 24.50 EUR, due ${endIso.slice(0, 10)}`);
  const text = issued.parsed.text ?? '';
  t.match(text, `Invoice ${renewal.id} of 24.50 EUR for the next 30 days`);
  t.match(text, `renews on ${endIso.slice(0, 16).replace('T', ' ')} UTC`, 'the due date: the period end');
  t.match(text, `https://vantage.example.test/billing/invoices/${renewal.id}`, 'the console\'s invoice page');
  t.match(text, /takes payments by hand .* an administrator marks the invoice paid/s, 'how the manual provider is paid');
  t.match(text, new RegExp(`stays in force until ${new Date(end + 7 * DAY).toISOString().slice(0, 16).replace('T', ' ')} UTC`));
  t.match(await runBillingRenewals(deps, new Date(end - 5 * DAY)), { invoiced: 0, notified: 0 }, 'a second pass sends none');

  // Past due at the period end: one e-mail naming the unpaid invoice and the last day of the plan.
  const [c, d] = await Promise.all([runBillingRenewals(deps, new Date(end + 1000)), runBillingRenewals(deps, new Date(end + 1000))]);
  t.equal(c.moved + d.moved, 1);
  t.equal(c.notified + d.notified, 1, 'one past_due e-mail between the two instances');
  const due = await one(/past due/);
  t.same(due.to, [u.email]);
  t.equal(due.parsed.subject, 'Vantage Pro: payment past due');
  t.match(due.parsed.text, `Its renewal invoice ${renewal.id} of 24.50 EUR is not paid.`);
  t.match(due.parsed.text, /falls back to the Free plan/);
  t.match(due.parsed.text, `https://vantage.example.test/billing/invoices/${renewal.id}`);
  t.match(await runBillingRenewals(deps, new Date(end + 3 * DAY)), { moved: 0, notified: 0 }, 'still past due: nothing more');

  // Expired after the grace: what the account is on now.
  t.match(await runBillingRenewals(deps, new Date(end + 7 * DAY + 1000)), { moved: 1, notified: 1 });
  const expired = await one(/subscription expired/);
  t.same(expired.to, [u.email]);
  t.match(expired.parsed.text, /renewal was not paid within 7 days/);
  t.match(expired.parsed.text, /now on the Free plan: 20 monitors, up to 5 nodes per monitor, intervals from 300 s, raw checks kept 30 days/);
  t.match(expired.parsed.text, 'https://vantage.example.test/billing');
  t.match(await runBillingRenewals(deps, new Date(end + 8 * DAY)), { moved: 0, invoiced: 0, notified: 0 }, 'nothing after the end');

  // A canceled subscription: no renewal invoice, no past_due, one e-mail when it ends.
  const v = await registerUser(app, 'canceling@example.test');
  t.equal((await call(app, 'POST', '/v1/billing/subscribe', { token: v.access_token, body: { plan: 'pro' } })).status, 200);
  const [vInvoice] = (await call(app, 'GET', '/v1/billing/invoices', { token: v.access_token })).body.data.items;
  await call(app, 'POST', `/v1/admin/billing/invoices/${vInvoice.id}/mark-paid`, { token: admin.access_token });
  const canceled = (await call(app, 'POST', '/v1/billing/subscription/cancel', { token: v.access_token })).body.data;
  const vEnd = Date.parse(canceled.current_period_end);
  t.match(await runBillingRenewals(deps, new Date(vEnd - DAY)), { invoiced: 0, notified: 0 });
  t.match(await runBillingRenewals(deps, new Date(vEnd + 1000)), { moved: 1, notified: 1 });
  const ended = [await eventually('the canceled subscription\'s e-mail', () => billingMails().find((m) => m.to.includes(v.email)) ?? null)];
  t.equal(ended.length, 1, 'one e-mail for the canceled subscription');
  t.match(ended[0]!.parsed.text, /canceled on .* ended with its paid period/s);

  // Exactly these four e-mails, each once; the delivery log agrees (every queued e-mail is sent: none waits); nobody else got any.
  await eventually('no e-mail left to send', async () => (await sql`SELECT 1 FROM deliveries WHERE channel = 'email' AND status = 'pending'`).length === 0 || null);
  t.equal(billingMails().length, 4);
  t.same(billingMails().flatMap((m) => m.to).sort(), [u.email, u.email, u.email, v.email].sort());
  const kinds = await sql<{ event_type: string; n: number }[]>`
    SELECT event_type, count(*)::int AS n FROM deliveries WHERE channel = 'email' AND event_type LIKE 'billing.%' GROUP BY 1 ORDER BY 1`;
  t.same(kinds.map((k) => [k.event_type, k.n]), [['billing.expired', 2], ['billing.past_due', 1], ['billing.renewal_invoice', 1]]);
});
