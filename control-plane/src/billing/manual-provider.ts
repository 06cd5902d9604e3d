import type { PaymentProvider } from './provider.js';

/**
 * The manual provider (default for self-hosting; docs/api/billing.md "Manual payments"): the
 * checkout URL is the console's invoice page (`<public base>/billing/invoices/<id>`), which shows
 * the amount and how to pay; an administrator marks the invoice paid
 * (`POST /v1/admin/billing/invoices/{id}/mark-paid`).
 * @param public_base the control plane's public base URL, no trailing slash (config/public-url.ts),
 *   read at each checkout: without a configured public URL it is the listening address, known
 *   only once the server listens
 */
export function createManualProvider(public_base: () => string): PaymentProvider {
  return {
    name: 'manual',
    async createCheckout(req) {
      return { pay_url: `${public_base()}/billing/invoices/${encodeURIComponent(req.invoice_id)}`, ext_checkout_id: null };
    },
    async cancelSubscription() {},
  };
}
