import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import t from 'tap';
import { call, registerUser, testApp } from '../test-support/app.js';

const WHSEC = 'whsec_test_secret';

/**
 * A loopback server answering POST /v1/checkout/sessions with Stripe's documented Checkout Session
 * object (recorded shape), or with `refuse` Stripe's documented error object (status 400,
 * `{error: {type, code, message, param}}`).
 */
async function stripeApi(t: { teardown: (fn: () => Promise<void>) => void }, opts: { refuse?: boolean } = {}) {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      seen.push(`${req.method} ${req.url} ${body}`);
      const params = new URLSearchParams(body);
      res.setHeader('content-type', 'application/json');
      res.setHeader('request-id', 'req_test');
      if (opts.refuse) {
        res.statusCode = 400;
        res.end(JSON.stringify({ error: { type: 'invalid_request_error', code: 'resource_missing', param: 'line_items[0][price]', message: "No such price: 'price_gone'" } }));
        return;
      }
      res.end(JSON.stringify({
        id: 'cs_test_a1', object: 'checkout.session', mode: params.get('mode'), status: 'open', payment_status: 'unpaid',
        client_reference_id: params.get('client_reference_id'), url: 'https://checkout.stripe.com/c/pay/cs_test_a1',
        metadata: { invoice_id: params.get('metadata[invoice_id]'), subscription_id: params.get('metadata[subscription_id]') },
        expires_at: Number(params.get('expires_at')), livemode: false,
      }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

t.test('Stripe: checkout on a loopback API; signed webhooks replayed and out of order move the subscription through its statuses', async (t) => {
  const api = await stripeApi(t);
  const { app, sql, url } = await testApp(t, { config: { billing_provider: 'stripe', stripe_secret_key: 'sk_test_x', stripe_webhook_secret: WHSEC, stripe_api_url: api.url } });
  const u = await registerUser(app, 'payer@example.test');
  const sub = await call(app, 'POST', '/v1/billing/subscribe', { token: u.access_token, body: { plan: 'business' } });
  t.equal(sub.status, 200);
  t.equal(sub.body.data.checkout_url, 'https://checkout.stripe.com/c/pay/cs_test_a1');
  t.match(api.seen[0], /POST \/v1\/checkout\/sessions .*mode=subscription/);
  const sub_id = sub.body.data.subscription_id;
  const [inv] = await sql`SELECT id FROM billing_invoices WHERE reference_id = ${sub_id}`;

  const stripe = new Stripe('sk_test_x');
  let n = 0;
  const send = async (type: string, object: Record<string, unknown>, created: number, id = `evt_${++n}`, signature?: string) => {
    const payload = JSON.stringify({ id, object: 'event', type, created, api_version: '2025-10-29', data: { object } });
    const res = await fetch(`${url}/v1/billing/webhooks/stripe`, {
      method: 'POST', body: payload,
      headers: { 'content-type': 'application/json', 'stripe-signature': signature ?? stripe.webhooks.generateTestHeaderString({ payload, secret: WHSEC }) },
    });
    return { status: res.status, body: await res.json() as any };
  };
  const now = Math.floor(Date.now() / 1000);
  const period_end = now + 30 * 86400;
  const stripeSub = (status: string, extra: Record<string, unknown> = {}) => ({
    id: 'sub_stripe_1', object: 'subscription', status, metadata: { subscription_id: sub_id }, cancel_at_period_end: false,
    items: { data: [{ current_period_end: period_end }] }, ...extra,
  });
  const status = async () => (await call(app, 'GET', '/v1/billing/subscription', { token: u.access_token })).body.data;

  t.equal((await send('customer.subscription.updated', stripeSub('active'), now, 'evt_bad', 't=1,v1=00')).status, 400, 'bad signature refused');
  t.equal((await status()).status, 'incomplete', 'nothing changed');
  // Out of order: the subscription event arrives before the checkout completion.
  t.equal((await send('customer.subscription.created', stripeSub('active'), now + 2)).status, 200);
  t.match(await status(), { status: 'active', plan: 'business' });
  const done = { id: 'cs_test_a1', object: 'checkout.session', mode: 'subscription', payment_status: 'paid', subscription: 'sub_stripe_1', customer: 'cus_1', client_reference_id: inv!.id, metadata: { invoice_id: inv!.id, subscription_id: sub_id } };
  const first = await send('checkout.session.completed', done, now + 1, 'evt_done');
  t.match(first.body.data, { received: true, replay: false });
  const replay = await send('checkout.session.completed', done, now + 1, 'evt_done');
  t.match(replay.body.data, { replay: true }, 'a replay changes nothing');
  t.equal((await sql`SELECT status FROM billing_invoices WHERE id = ${inv!.id}`)[0]!.status, 'paid');
  // An older subscription event (incomplete) is skipped.
  await send('customer.subscription.updated', stripeSub('incomplete'), now);
  t.equal((await status()).status, 'active', 'older event skipped');
  // A renewal fails: past_due; then paid: active with a new invoice.
  const renewal = { id: 'in_2', object: 'invoice', billing_reason: 'subscription_cycle', amount_due: 9900, currency: 'usd', parent: { subscription_details: { subscription: 'sub_stripe_1', metadata: { subscription_id: sub_id } } }, lines: { data: [{ period: { end: period_end + 30 * 86400 } }] } };
  await send('invoice.payment_failed', renewal, now + 3);
  t.equal((await status()).status, 'past_due');
  await send('customer.subscription.updated', stripeSub('past_due'), now + 4);
  await send('invoice.paid', renewal, now + 5);
  await send('invoice.paid', renewal, now + 5, 'evt_again');
  await send('customer.subscription.updated', stripeSub('active', { items: { data: [{ current_period_end: period_end + 30 * 86400 }] } }), now + 6);
  t.match(await status(), { status: 'active' });
  const items = (await call(app, 'GET', '/v1/billing/invoices', { token: u.access_token })).body.data.items;
  t.same(items.map((i: { status: string; amount: number }) => [i.status, i.amount]), [['paid', 9900], ['paid', 9900]], 'one renewal invoice despite two paid events');
  // Canceled at Stripe with the period over: expired; plan back to the deployment's.
  await send('customer.subscription.deleted', stripeSub('canceled', { items: { data: [{ current_period_end: now - 10 }] }, canceled_at: now }), now + 7);
  t.match(await status(), { status: 'expired', plan: 'self_hosted' });
});


t.test('Stripe refuses the checkout: 402 BILLING_PAYMENT_FAILED, the invoice void, nothing active', async (t) => {
  const api = await stripeApi(t, { refuse: true });
  const { app, sql } = await testApp(t, { config: { billing_provider: 'stripe', stripe_secret_key: 'sk_test_x', stripe_webhook_secret: WHSEC, stripe_api_url: api.url, stripe_price_pro: 'price_gone' } });
  const u = await registerUser(app, 'refused@example.test');
  const res = await call(app, 'POST', '/v1/billing/subscribe', { token: u.access_token, body: { plan: 'pro' } });
  t.equal(res.status, 402);
  t.equal(res.body.error.code, 'BILLING_PAYMENT_FAILED');
  t.match(res.body.error.message, /No such price/);
  t.match(api.seen[0], /line_items\[0\]\[price\]=price_gone/, 'the configured Price was sent');
  const [inv] = await sql<{ status: string; failure_reason: string }[]>`SELECT status, failure_reason FROM billing_invoices WHERE user_id = ${u.user_id}`;
  t.match(inv, { status: 'void', failure_reason: /No such price/ });
  t.match((await call(app, 'GET', '/v1/billing/subscription', { token: u.access_token })).body.data, { plan: 'self_hosted', status: 'incomplete' });
});
