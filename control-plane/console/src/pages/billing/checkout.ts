import { navigate } from '../../router.js';

/**
 * Follow a checkout URL (docs/api/billing.md "Subscribing"): the manual provider's is the console's
 * own invoice page (opened without a reload), a payment provider's is its hosted checkout.
 */
export function followCheckout(checkout_url: string): void {
  const url = new URL(checkout_url, location.origin);
  if (url.origin === location.origin) navigate(url.pathname + url.search);
  else location.assign(url.href);
}
