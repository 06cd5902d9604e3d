import type { AlertChannel, AlertEmailOptInResult, AlertEmailRecipient } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';
import type { AppDeps } from '../deps.js';
import { publicLink } from '../email/links.js';
import { ApiError } from '../errors.js';
import { rateLimitHeaders } from '../middleware/rate-limit.js';
import type { AlertChannelRow } from './alert-channels.db.js';
import { newOptInToken } from './email-recipient-tokens.js';
import { insertRecipients, recipientsOf, renewOptIn, type OptInLink, type RecipientOwner, type RecipientRow } from './email-recipients.db.js';
import { optInEmail } from './opt-in-email.js';
import { chargeAccount, OPT_IN_MAIL_LIMIT } from './send-limits.js';
import { toChannel } from './view.js';

/*
 * Who an e-mail channel may write to (docs/api/alerting.md "E-mail recipients"). Recipients are
 * kept per account and address: `confirmed` through the opt-in e-mail's link (or being the
 * account's own verified address), `unsubscribed` through an alert e-mail's link, else
 * `pending`. Only confirmed addresses receive notifications; a pending one got exactly one opt-in
 * e-mail (more only when the account asks again, within OPT_IN_MAIL_LIMIT).
 */

/** The public paths of the recipient links (alert-channels router, `/recipients/...`). */
export const RECIPIENT_PATHS = {
  confirm: '/v1/alert-channels/recipients/confirm',
  unsubscribe: '/v1/alert-channels/recipients/unsubscribe',
} as const;

type Deps = Pick<AppDeps, 'sql' | 'config' | 'mail'>;

/** The addresses of an e-mail channel's config, lower-cased, each once, in order. */
export function channelAddresses(config: Record<string, unknown>): string[] {
  const to = Array.isArray(config.to) ? config.to.filter((a): a is string => typeof a === 'string') : [];
  return [...new Set(to.map((a) => a.toLowerCase()))];
}

/**
 * Each address's state for the account: its row's; without a row, pending (no opt-in sent yet);
 * a pending address that is the account's own verified one counts as confirmed.
 */
export function recipientViews(addresses: string[], found: { owner: RecipientOwner; rows: RecipientRow[] } | null): AlertEmailRecipient[] {
  const rows = new Map(found?.rows.map((r) => [r.address, r]));
  const own = found?.owner.email_verified ? found.owner.email.toLowerCase() : null;
  return addresses.map((address) => {
    const row = rows.get(address);
    const stored = row?.state ?? 'pending';
    const state = stored === 'pending' && address === own ? 'confirmed' : stored;
    return {
      address, state, opt_in_sent_at: row?.opt_in_sent_at?.toISOString() ?? null,
      confirmed_at: row?.confirmed_at?.toISOString() ?? null, unsubscribed_at: row?.unsubscribed_at?.toISOString() ?? null,
    };
  });
}

/** Channels as the API returns them (view.ts), e-mail channels with `recipients[]`; one query for all. */
export async function channelViews(sql: SqlExecutor, user_id: string, rows: AlertChannelRow[]): Promise<AlertChannel[]> {
  const email = rows.filter((r) => r.type === 'email');
  const found = email.length > 0 ? await recipientsOf(sql, user_id, [...new Set(email.flatMap((r) => channelAddresses(r.config)))]) : null;
  return rows.map((r) => (r.type === 'email' ? { ...toChannel(r), recipients: recipientViews(channelAddresses(r.config), found) } : toChannel(r)));
}

/** Who an e-mail channel's notification goes to now, and who is skipped and why (for the delivery log). */
export async function sendableRecipients(sql: SqlExecutor, channel: Pick<AlertChannelRow, 'user_id' | 'config'>): Promise<{ send: string[]; skipped: Array<{ address: string; reason: string }> }> {
  const addresses = channelAddresses(channel.config);
  const views = recipientViews(addresses, await recipientsOf(sql, channel.user_id, addresses));
  return {
    send: views.filter((v) => v.state === 'confirmed').map((v) => v.address),
    skipped: views.filter((v) => v.state !== 'confirmed').map((v) => ({ address: v.address, reason: v.state === 'pending' ? 'pending confirmation' : 'unsubscribed' })),
  };
}

/** New recipients of a channel save: confirmed at once (the own verified address), and pending with their links. */
export interface RecipientPlan {
  confirmed: string[];
  pending: Array<OptInLink & { token: string }>;
}

/**
 * Before a channel save: which of `addresses` the account has no recipient for yet, each pending
 * one charged to the account's opt-in budget (nothing is written yet).
 * @throws ApiError RATE_LIMIT_EXCEEDED (429) past OPT_IN_MAIL_LIMIT
 */
export async function planRecipients(deps: Deps, user_id: string, addresses: string[]): Promise<RecipientPlan> {
  const found = await recipientsOf(deps.sql, user_id, addresses);
  if (!found) throw new ApiError('ACCOUNT_NOT_FOUND', 'account not found');
  const known = new Set(found.rows.map((r) => r.address));
  const own = found.owner.email_verified ? found.owner.email.toLowerCase() : null;
  const fresh = addresses.filter((a) => !known.has(a));
  const outside = fresh.filter((a) => a !== own);
  await chargeAccount(deps.sql, user_id, OPT_IN_MAIL_LIMIT, outside.length);
  const expires_at = new Date(Date.now() + deps.config.email_verification_ttl_s * 1000);
  return { confirmed: fresh.filter((a) => a === own), pending: outside.map((address) => ({ address, expires_at, ...newOptInToken() })) };
}

/**
 * Store a plan's recipients inside the channel save's transaction and queue one opt-in e-mail to
 * each pending address stored now (a concurrent save that stored it first sent its own).
 */
export async function storeRecipients(deps: Deps, tx: SqlExecutor, user_id: string, channel_name: string, plan: RecipientPlan): Promise<void> {
  const inserted = await insertRecipients(tx, user_id, plan.confirmed, plan.pending);
  for (const p of plan.pending) {
    if (inserted.has(p.address)) await sendOptIn(deps, tx, user_id, channel_name, p);
  }
}

function sendOptIn(deps: Deps, tx: SqlExecutor, user_id: string, channel_name: string, p: OptInLink & { token: string }) {
  const link = publicLink(deps.config, RECIPIENT_PATHS.confirm, { token: p.token });
  const rendered = optInEmail({ address: p.address, channel_name, link, expires_at: p.expires_at, site: new URL(link).host });
  return deps.mail.send({ ...rendered, to: p.address, user_id, kind: 'alert.recipient_opt_in' }, tx);
}

/**
 * Send a pending address of the channel a new opt-in e-mail (the earlier link stops working): at
 * most one per `email_verification_resend_s` per address, and within the account's OPT_IN_MAIL_LIMIT.
 * @throws ApiError VALIDATION_FAILED (not an address of the channel), CONFLICT (confirmed or
 *   unsubscribed: only its recipient decides), RATE_LIMIT_EXCEEDED (429, Retry-After)
 */
export async function resendOptIn(deps: Deps, channel: AlertChannelRow, raw_address: string): Promise<AlertEmailOptInResult> {
  const address = raw_address.toLowerCase();
  if (channel.type !== 'email' || !channelAddresses(channel.config).includes(address)) {
    throw new ApiError('VALIDATION_FAILED', 'address: is not an address of this e-mail channel', { fields: [{ path: 'address', message: 'is not an address of this e-mail channel' }] });
  }
  const [view] = recipientViews([address], await recipientsOf(deps.sql, channel.user_id, [address]));
  if (view!.state !== 'pending') throw new ApiError('CONFLICT', `${address} is ${view!.state}: ${view!.state === 'confirmed' ? 'it needs no opt-in e-mail' : 'only its recipient can ask for alerts again'}`, { state: view!.state });
  const min_interval_s = deps.config.email_verification_resend_s;
  const p = { address, expires_at: new Date(Date.now() + deps.config.email_verification_ttl_s * 1000), ...newOptInToken() };
  const sent = await deps.sql.begin(async (tx) => {
    const claim = await renewOptIn(tx, channel.user_id, p, min_interval_s);
    if (!claim.ok) return claim;
    // Charged inside the transaction: past the budget it throws and the new link is rolled back.
    await chargeAccount(deps.sql, channel.user_id, OPT_IN_MAIL_LIMIT);
    return { ok: true as const, delivery: await sendOptIn(deps, tx, channel.user_id, channel.name, p) };
  });
  if (sent.ok) return { address, state: 'pending', email_delivery: sent.delivery };
  if (sent.reason !== 'too_soon') throw new ApiError('CONFLICT', `${address} is ${sent.reason}`, { state: sent.reason });
  throw new ApiError('RATE_LIMIT_EXCEEDED', `an opt-in e-mail went to ${address} less than ${min_interval_s} s ago; try again in ${sent.retry_after_s} s`, { retry_after_s: sent.retry_after_s },
    rateLimitHeaders(1, { count: 2, reset_at: new Date(Date.now() + sent.retry_after_s * 1000) }));
}
