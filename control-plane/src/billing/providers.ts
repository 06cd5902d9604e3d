import type { Config } from '../config/index.js';
import { publicBaseUrl } from '../config/public-url.js';
import { createManualProvider } from './manual-provider.js';
import type { PaymentProvider } from './provider.js';
import { createStripeProvider } from './stripe-provider.js';

/** The payment provider VANTAGE_BILLING_PROVIDER names (docs/api/billing.md "Payment providers"). */
export function createProvider(config: Config): PaymentProvider {
  return config.billing_provider === 'stripe' ? createStripeProvider(config, publicBaseUrl(config)) : createManualProvider(() => publicBaseUrl(config));
}
