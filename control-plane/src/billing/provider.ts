import type { PaymentProviderName } from '../config/billing.js';

/** What a provider is asked to open a checkout for (an invoice row already written, status open). */
export interface CheckoutRequest {
  /** Our invoice id (bi_), sent to the provider as metadata so its webhook names it back. */
  invoice_id: string;
  account_id: string;
  /** The account's e-mail, prefilled at the provider's checkout page. */
  email: string;
  amount_cents: number;
  /** ISO 4217, lower case. */
  currency: string;
  description: string;
  /** When the checkout stops being payable. */
  expires_at: Date;
  /**
   * `payment` = a one-off charge; `subscription` = the first period of a monthly plan
   * subscription (`plan` and our `subscription_id` given).
   */
  mode: 'payment' | 'subscription';
  plan?: 'pro' | 'business';
  subscription_id?: string;
}

/**
 * A payment provider (docs/api/billing.md "Payment providers"): where the account is sent to pay.
 * The provider later tells us the outcome (Stripe: signed webhooks; manual: an administrator).
 */
export interface PaymentProvider {
  readonly name: PaymentProviderName;
  /** Open a checkout; returns the URL the payer opens and the provider's id for it (Stripe Checkout Session id). */
  createCheckout(req: CheckoutRequest): Promise<{ pay_url: string; ext_checkout_id: string | null }>;
  /** Stop the provider's subscription at the end of its period (manual: nothing to tell). */
  cancelSubscription(ext_subscription_id: string | null): Promise<void>;
}
