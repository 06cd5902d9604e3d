import type Stripe from 'stripe';
import type { Config } from '../config/index.js';
import type { PaymentProvider } from './provider.js';

/** Stripe's shortest Checkout Session lifetime, ms (Checkout Session `expires_at`: 30 minutes to 24 hours ahead). */
const CHECKOUT_MIN_TTL_MS = 30 * 60_000;

/**
 * The Stripe client of the configured key, its API base taken from VANTAGE_STRIPE_API_URL when
 * set (tests: a loopback server answering Stripe's documented responses). No retries: a failed
 * checkout is answered BILLING_PAYMENT_FAILED at once.
 * @returns a getter of the client: the Stripe SDK (about 200 modules) is loaded at its first call,
 *   not when the app starts
 * @throws Error at once when no secret key is configured
 */
export function stripeClient(config: Pick<Config, 'stripe_secret_key' | 'stripe_api_url'>): () => Promise<Stripe> {
  if (!config.stripe_secret_key) throw new Error('VANTAGE_STRIPE_SECRET_KEY is required with VANTAGE_BILLING_PROVIDER=stripe');
  const opts: ConstructorParameters<typeof Stripe>[1] = { maxNetworkRetries: 0, timeout: 20_000, telemetry: false };
  if (config.stripe_api_url) {
    const u = new URL(config.stripe_api_url);
    opts.host = u.hostname;
    opts.protocol = u.protocol === 'http:' ? 'http' : 'https';
    opts.port = Number(u.port || (u.protocol === 'http:' ? 80 : 443));
  }
  const key = config.stripe_secret_key;
  let client: Promise<Stripe> | undefined;
  return () => (client ??= import('stripe').then(({ default: StripeSdk }) => new StripeSdk(key, opts)));
}

/**
 * The Stripe provider (docs/api/billing.md "Stripe"): one-off charges are Checkout Sessions in
 * `payment` mode with an inline price; plan subscriptions are Checkout Sessions in `subscription`
 * mode with the plan's Price (VANTAGE_STRIPE_PRICE_*) or an inline monthly price. Our invoice id
 * travels as `client_reference_id` and metadata `invoice_id`; a subscription's id as metadata
 * `subscription_id` on the Stripe subscription, so webhooks name them back.
 * @param public_base where the payer returns after checkout (`<base>/billing`)
 */
export function createStripeProvider(config: Config, public_base: string): PaymentProvider {
  const stripe = stripeClient(config);
  return {
    name: 'stripe',
    async createCheckout(req) {
      const expires_at = Math.floor(Math.max(req.expires_at.getTime(), Date.now() + CHECKOUT_MIN_TTL_MS + 60_000) / 1000);
      const base = {
        customer_email: req.email,
        client_reference_id: req.invoice_id,
        metadata: { invoice_id: req.invoice_id, account_id: req.account_id },
        success_url: `${public_base}/billing?checkout=success`,
        cancel_url: `${public_base}/billing?checkout=canceled`,
        expires_at,
      };
      let session: Stripe.Checkout.Session;
      if (req.mode === 'subscription') {
        const price = req.plan === 'business' ? config.stripe_price_business : config.stripe_price_pro;
        session = await (await stripe()).checkout.sessions.create({
          ...base,
          mode: 'subscription',
          line_items: [price
            ? { price, quantity: 1 }
            : { quantity: 1, price_data: { currency: req.currency, unit_amount: req.amount_cents, recurring: { interval: 'month' }, product_data: { name: req.description } } }],
          subscription_data: { metadata: { subscription_id: req.subscription_id ?? '', account_id: req.account_id } },
          metadata: { ...base.metadata, subscription_id: req.subscription_id ?? '' },
        });
      } else {
        session = await (await stripe()).checkout.sessions.create({
          ...base,
          mode: 'payment',
          line_items: [{ quantity: 1, price_data: { currency: req.currency, unit_amount: req.amount_cents, product_data: { name: req.description } } }],
        });
      }
      if (!session.url) throw new Error('Stripe returned a Checkout Session without a url');
      return { pay_url: session.url, ext_checkout_id: session.id };
    },
    async cancelSubscription(ext_subscription_id) {
      if (ext_subscription_id) await (await stripe()).subscriptions.update(ext_subscription_id, { cancel_at_period_end: true });
    },
  };
}
