import { createHash } from 'node:crypto';
import {
  newId, newWebhookSecret, VERDICT_PRICES_CNY, VERDICT_WINDOW_MAX_DAYS, type CreateVerdictOrderRequest, type VerdictTemplate,
} from '@vantage/shared-protocol';
import { billingDepsOf, createCharge, deductReportCredit } from '../billing/payment-api.js';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { secretBoxOf } from '../secrets/secret-box.js';
import { takeFreeVerdict } from '../compliance/compliance.db.js';
import { insertOrder, monitorsOfTarget, orderByIdempotencyKey, probedInWindow, setOrderCharge, type VerdictOrderRow } from './verdicts.db.js';

/** How long a pay_url may be used (docs/api/verdicts.md "Payment": 24 hours). */
export const PAY_URL_VALIDITY_MS = 24 * 3_600_000;
/** The secret box binding of an order's webhook secret. */
export const webhookSecretAad = (order_id: string) => `verdict_webhook:${order_id}`;

/** The create answer (docs/api/verdicts.md "Create"). */
export interface CreatedOrder {
  order_id: string;
  pay_url: string;
  payment_method: 'charge' | 'report_credit';
  price_cny: number;
  webhook_secret?: string;
}

/** SHA-256 of the request's fields (the idempotency key and payment choice aside): same key + other body → 409. */
function requestHash(body: CreateVerdictOrderRequest): string {
  const { idempotency_key: _k, ...rest } = body;
  const fields = Object.keys(rest).sort().map((k) => [k, (rest as Record<string, unknown>)[k]]);
  return createHash('sha256').update(JSON.stringify(fields)).digest('hex');
}

/** The answer for an order that already exists (an idempotent replay). */
function answerOf(deps: Pick<AppDeps, 'config'>, row: VerdictOrderRow): CreatedOrder {
  return {
    order_id: row.id, pay_url: row.pay_url, payment_method: row.payment_method, price_cny: Number(row.price_cny),
    ...(row.webhook_secret_sealed ? { webhook_secret: secretBoxOf(deps.config).open(row.webhook_secret_sealed, webhookSecretAad(row.id)) } : {}),
  };
}

/**
 * Create a verdict order for `user` (docs/api/verdicts.md "Create"). Rules, in order:
 * the window (start < end <= now, at most VERDICT_WINDOW_MAX_DAYS) else 400 VALIDATION_FAILED;
 * an idempotency key already used: the same request answers the same order, another request 409
 * CONFLICT; the target must be one of the caller's monitors (its target, or its URL's host) or
 * probed by the caller in the window, else 422 MONITOR_INVALID_TARGET with `details.reason`.
 * Payment: `report_credit` deducts one report pack credit in the order's transaction (paid at
 * once, queued); asked for without a credit left: 402 BILLING_INSUFFICIENT_CREDITS; otherwise
 * (`charge`, or no choice and no credit) a charge through the billing provider with a pay_url
 * valid 24 h, paid by the provider (its paid handler moves the order to paid: payments.ts).
 */
export async function createOrder(deps: AppDeps, user: { user_id: string; email: string }, body: CreateVerdictOrderRequest, now: Date = new Date()): Promise<{ created: boolean; answer: CreatedOrder }> {
  const from = new Date(body.time_window_start);
  const to = new Date(body.time_window_end);
  const field = (path: string, message: string) => new ApiError('VALIDATION_FAILED', `${path} ${message}`, { fields: [{ path, message }] });
  if (from.getTime() >= to.getTime()) throw field('time_window_end', 'must be after time_window_start');
  if (to.getTime() > now.getTime() + 60_000) throw field('time_window_end', 'must not be in the future');
  if (to.getTime() - from.getTime() > VERDICT_WINDOW_MAX_DAYS * 86_400_000) throw field('time_window_start', `the window must be at most ${VERDICT_WINDOW_MAX_DAYS} days`);
  const hash = requestHash(body);
  const key = body.idempotency_key ?? null;
  const replay = async (): Promise<{ created: false; answer: CreatedOrder } | null> => {
    if (key === null) return null;
    const existing = await orderByIdempotencyKey(deps.sql, user.user_id, key);
    if (!existing) return null;
    if (existing.request_hash !== hash) throw new ApiError('CONFLICT', 'this idempotency key was used for another request', { idempotency_key: key });
    return { created: false, answer: answerOf(deps, existing) };
  };
  const earlier = await replay();
  if (earlier) return earlier;

  const monitors = await monitorsOfTarget(deps.sql, user.user_id, body.target);
  if (monitors.length === 0 && !(await probedInWindow(deps.sql, user.user_id, body.target, from, to))) {
    throw new ApiError('MONITOR_INVALID_TARGET', 'the target is neither one of your monitors nor probed by you in the window', {
      reason: 'target_not_observed', target: body.target,
    });
  }
  const id = newId('verdict_order');
  const price_cny = VERDICT_PRICES_CNY[body.template as VerdictTemplate];
  const secret = body.webhook_url ? newWebhookSecret() : null;
  const base = {
    id, user_id: user.user_id, template: body.template, target: body.target, time_window_start: from, time_window_end: to, notes: body.notes ?? '',
    notify_email: body.notify_email ?? user.email, webhook_url: body.webhook_url ?? null,
    webhook_secret_sealed: secret ? secretBoxOf(deps.config).seal(secret, webhookSecretAad(id)) : null,
    monitor_ids: monitors.map((m) => m.id), idempotency_key: key, request_hash: hash, price_cny,
  };
  // A credit, when asked for or when one is left and nothing was asked: a free verdict of an active
  // compliance subscription first, else a report pack credit; deducted with the insert, atomically.
  // `entitlement_id` records where the credit came from (a cs_ subscription or an etl_ entitlement).
  const credited = body.payment_method === 'charge' ? null : await deps.sql.begin(async (tx) => {
    const source = (await takeFreeVerdict(tx, user.user_id)) ?? (await deductReportCredit(tx, user.user_id))?.entitlement_id ?? null;
    if (!source) return null;
    const row = await insertOrder(tx, { ...base, payment_method: 'report_credit', entitlement_id: source, paid: true });
    // A concurrent request with the same key won: undo the deduction with this transaction.
    if (!row) throw new IdempotencyRace();
    return row;
  }).catch((err) => {
    if (err instanceof IdempotencyRace) return 'race' as const;
    throw err;
  });
  if (credited === 'race') return (await replay())!;
  if (credited) return { created: true, answer: { ...answerOf(deps, credited), ...(secret ? { webhook_secret: secret } : {}) } };
  if (body.payment_method === 'report_credit') throw new ApiError('BILLING_INSUFFICIENT_CREDITS', 'no free verdict or report pack credit left: buy a report pack or pay by charge');

  const row = await insertOrder(deps.sql, { ...base, payment_method: 'charge', entitlement_id: null, paid: false });
  if (!row) return (await replay())!;
  const pay_expires_at = new Date(now.getTime() + PAY_URL_VALIDITY_MS);
  const charge = await createCharge(billingDepsOf(deps), {
    account_id: user.user_id, amount_cents: Math.round(price_cny * 100), currency: 'cny', purpose: 'verdict_order', reference_id: id,
    description: `Vantage verdict report ${body.template} for ${body.target}`, expires_at: pay_expires_at,
  });
  await setOrderCharge(deps.sql, id, charge.charge_id, charge.pay_url, pay_expires_at);
  return { created: true, answer: { order_id: id, pay_url: charge.pay_url, payment_method: 'charge', price_cny, ...(secret ? { webhook_secret: secret } : {}) } };
}

class IdempotencyRace extends Error {}
