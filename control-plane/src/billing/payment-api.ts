/**
 * Payments for other features (verdict orders, compliance subscriptions) and for plan
 * subscriptions (docs/api/billing.md). Final signatures:
 *
 *   deductReportCredit(tx: SqlExecutor, accountId: string): Promise<{ entitlement_id: string; balance: number } | null>
 *   createCharge(deps: BillingDeps, input: { account_id; amount_cents; currency; purpose; reference_id; description; expires_at: Date }): Promise<{ charge_id: string; pay_url: string }>
 *   onChargePaid(purpose: string, handler: (tx: SqlExecutor, charge: PaidCharge) => Promise<void>): void
 *   billingDepsOf(deps: Pick<AppDeps, 'config' | 'sql'>): BillingDeps   (one per AppDeps, memoised)
 *
 * `SqlExecutor` is contracts.ts's `Sql | TransactionSql`. A charge is an invoice (`bi_` id) listed by
 * GET /v1/billing/invoices; `charge_id` is that id. Handlers are plain functions of (tx, charge):
 * registering the same purpose again replaces the handler (so every app built in a test process
 * may register at route mounting).
 */
import { ApiError } from '../errors.js';
import type { SqlExecutor } from '../contracts.js';
import type { AppDeps } from '../deps.js';
import type { Config } from '../config/index.js';
import { createProvider } from './providers.js';
import type { PaymentProvider } from './provider.js';
import { insertInvoice, markInvoicePaidRow, setInvoiceCheckout, type InvoiceRow } from './invoices.db.js';

/** What billing needs from the app: configuration, the database and the configured payment provider. */
export interface BillingDeps {
  config: Config;
  sql: AppDeps['sql'];
  provider: PaymentProvider;
}

/** A paid charge as its handler sees it (amount in the currency's minor unit). */
export interface PaidCharge {
  charge_id: string;
  account_id: string;
  reference_id: string;
  amount_cents: number;
  currency: string;
}

/** Runs once when a charge of its purpose is paid, inside the transaction that marks it paid. */
export type ChargePaidHandler = (tx: SqlExecutor, charge: PaidCharge) => Promise<void>;

const paidHandlers = new Map<string, ChargePaidHandler>();
const depsMemo = new WeakMap<object, BillingDeps>();

/** Build billing's deps (the payment provider of `config.billing_provider`). */
export function createBillingDeps(deps: Pick<AppDeps, 'config' | 'sql'>): BillingDeps {
  return { config: deps.config, sql: deps.sql, provider: createProvider(deps.config) };
}

/** The BillingDeps of an app's deps, built on first use and kept for that AppDeps object. */
export function billingDepsOf(deps: Pick<AppDeps, 'config' | 'sql'>): BillingDeps {
  let found = depsMemo.get(deps);
  if (!found) {
    found = createBillingDeps(deps);
    depsMemo.set(deps, found);
  }
  return found;
}

/**
 * Deducts one credit from the caller's active report_pack entitlement with balance > 0 (oldest
 * expiring first; entitlements without expiry last; then oldest granted), atomically, inside the
 * given transaction (the row is locked until it ends). Returns the entitlement id and the new
 * balance, or null when no credit is left (the caller answers BILLING_INSUFFICIENT_CREDITS).
 */
export async function deductReportCredit(tx: SqlExecutor, accountId: string): Promise<{ entitlement_id: string; balance: number } | null> {
  const [row] = await tx<{ id: string; balance: string | number }[]>`
    UPDATE entitlements SET balance = balance - 1
    WHERE id = (
      SELECT id FROM entitlements
      WHERE user_id = ${accountId} AND kind = 'report_pack' AND status = 'active' AND balance > 0
        AND (expires_at IS NULL OR expires_at > now())
      ORDER BY expires_at ASC NULLS LAST, granted_at ASC, id ASC
      LIMIT 1 FOR UPDATE
    ) AND balance > 0
    RETURNING id, balance`;
  return row ? { entitlement_id: row.id, balance: Number(row.balance) } : null;
}

/**
 * Creates a one-off charge through the configured payment provider (manual or stripe): an open
 * invoice of the account, payable until `expires_at` (Stripe accepts 30 minutes to 24 hours
 * ahead; a later time is brought back to 24 hours). `purpose` names the thing paid for
 * ('verdict_order' | 'compliance_subscription' | 'subscription'); `reference_id` is that thing's id.
 * Amount in the currency's minor unit (cents), currency ISO 4217 (any case).
 * @returns the charge (invoice) id and the pay URL
 * @throws ApiError VALIDATION_FAILED for a negative or fractional amount or a bad currency;
 *   ACCOUNT_NOT_FOUND for an unknown account; BILLING_PAYMENT_FAILED when the provider refuses
 */
export async function createCharge(deps: BillingDeps, input: {
  account_id: string; amount_cents: number; currency: string; purpose: string; reference_id: string; description: string; expires_at: Date;
}): Promise<{ charge_id: string; pay_url: string }> {
  const invoice = await openCheckout(deps, { ...input, mode: 'payment' });
  return { charge_id: invoice.id, pay_url: invoice.pay_url };
}

/**
 * Write an open invoice and open the provider's checkout for it (createCharge, and a plan
 * subscription's first period with mode `subscription`).
 */
export async function openCheckout(deps: BillingDeps, input: {
  account_id: string; amount_cents: number; currency: string; purpose: string; reference_id: string; description: string; expires_at: Date;
  mode: 'payment' | 'subscription'; plan?: 'pro' | 'business';
}): Promise<InvoiceRow> {
  if (!Number.isSafeInteger(input.amount_cents) || input.amount_cents < 0) throw new ApiError('VALIDATION_FAILED', 'amount_cents must be a whole number >= 0');
  const currency = input.currency.toLowerCase();
  if (!/^[a-z]{3}$/.test(currency)) throw new ApiError('VALIDATION_FAILED', 'currency must be an ISO 4217 code');
  const [user] = await deps.sql<{ email: string }[]>`SELECT email FROM users WHERE id = ${input.account_id}`;
  if (!user) throw new ApiError('ACCOUNT_NOT_FOUND');
  const latest = Date.now() + 24 * 3600_000;
  const expires_at = new Date(Math.min(input.expires_at.getTime(), latest));
  const invoice = await insertInvoice(deps.sql, {
    user_id: input.account_id, purpose: input.purpose, reference_id: input.reference_id, description: input.description,
    amount_cents: input.amount_cents, currency, provider: deps.provider.name, expires_at,
  });
  let checkout: { pay_url: string; ext_checkout_id: string | null };
  try {
    checkout = await deps.provider.createCheckout({
      invoice_id: invoice.id, account_id: input.account_id, email: user.email, amount_cents: input.amount_cents, currency,
      description: input.description, expires_at, mode: input.mode, plan: input.plan,
      subscription_id: input.mode === 'subscription' ? input.reference_id : undefined,
    });
  } catch (err) {
    await deps.sql`UPDATE billing_invoices SET status = 'void', failure_reason = ${String((err as Error).message).slice(0, 500)} WHERE id = ${invoice.id}`;
    throw new ApiError('BILLING_PAYMENT_FAILED', `the payment provider refused the checkout: ${(err as Error).message}`);
  }
  await setInvoiceCheckout(deps.sql, invoice.id, checkout.pay_url, checkout.ext_checkout_id);
  return { ...invoice, pay_url: checkout.pay_url, ext_checkout_id: checkout.ext_checkout_id };
}

/**
 * Registers what happens when a charge of `purpose` is paid: called once per charge, inside the
 * transaction that marks it paid ({@link settleInvoice}); a replayed provider webhook finds the
 * charge already paid and never calls it again. Registering a purpose again replaces its handler.
 */
export function onChargePaid(purpose: string, handler: ChargePaidHandler): void {
  paidHandlers.set(purpose, handler);
}

/**
 * Mark an invoice paid and run its purpose's handler, inside `tx`. Returns the paid invoice, or
 * null when it was not open (already paid or void: nothing happens).
 */
export async function settleInvoice(tx: SqlExecutor, invoice_id: string, paid_at: Date = new Date()): Promise<InvoiceRow | null> {
  const row = await markInvoicePaidRow(tx, invoice_id, paid_at);
  if (!row) return null;
  const handler = paidHandlers.get(row.purpose);
  if (handler) {
    await handler(tx, { charge_id: row.id, account_id: row.user_id, reference_id: row.reference_id, amount_cents: Number(row.amount_cents), currency: row.currency });
  }
  return row;
}
