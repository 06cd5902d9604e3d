import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { ZodError } from 'zod';
import {
  alertEmailOptInRequestSchema, alertEmailOptInResultSchema, alertRecipientLinkSchema, alertRecipientTokenQuerySchema, errorEnvelopeSchema, isId,
  successEnvelope, type AlertRecipientLink,
} from '@vantage/shared-protocol';
import { jwtKey } from '../accounts/jwt.js';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter, validationError } from '../http/router.js';
import { authorize } from '../teams/authorize.js';
import { getChannelById } from './alert-channels.db.js';
import { checkUnsubscribeToken, optInHash } from './email-recipient-tokens.js';
import { confirmByOptInHash, findByOptInHash, recipientsOf, unsubscribeRecipient } from './email-recipients.db.js';
import { PAGE_HEADERS, recipientPage } from './email-recipients.pages.js';
import { recipientViews, resendOptIn } from './email-recipients.js';
import { idParam, ownerOf, TAGS, WRITE } from './route-kit.js';

const page = (description: string) => ({
  description,
  content: { 'application/json': { schema: successEnvelope(alertRecipientLinkSchema) }, 'text/html': { schema: z.string() } },
});
const pageError = (description: string) => ({ description, content: { 'application/json': { schema: errorEnvelopeSchema }, 'text/html': { schema: z.string() } } });
const LINK_ERRORS = {
  400: pageError('VALIDATION_FAILED: no token'),
  401: pageError('AUTH_INVALID_TOKEN (unknown, forged, or replaced by a newer opt-in e-mail), TOKEN_EXPIRED (ask the account for a new opt-in e-mail)'),
};
const PUBLIC = 'Public: the link\'s token is the credential. A browser (Accept: text/html) gets a page; other clients the JSON envelope.';
const request = { query: alertRecipientTokenQuerySchema };

const confirmGet = createRoute({
  method: 'get', path: '/recipients/confirm', tags: TAGS, request, description: PUBLIC,
  summary: 'The link of an opt-in e-mail: shows the address and a button that POSTs this URL; changes nothing (mail scanners open links)',
  responses: { 200: page('the address and its state'), ...LINK_ERRORS },
});
const confirmPost = createRoute({
  method: 'post', path: '/recipients/confirm', tags: TAGS, request, description: PUBLIC,
  summary: 'Confirm the address of an opt-in link: it receives the account\'s alert e-mails from now on',
  responses: { 200: page('confirmed (again: the same answer)'), ...LINK_ERRORS },
});
const unsubscribeGet = createRoute({
  method: 'get', path: '/recipients/unsubscribe', tags: TAGS, request, description: PUBLIC,
  summary: 'The unsubscribe link of an alert e-mail: shows the address and a button that POSTs this URL; changes nothing',
  responses: { 200: page('the address and its state'), ...LINK_ERRORS },
});
const unsubscribePost = createRoute({
  method: 'post', path: '/recipients/unsubscribe', tags: TAGS, request,
  description: `${PUBLIC} Also the one-click unsubscribe of RFC 8058 (List-Unsubscribe-Post); any body is ignored.`,
  summary: 'Unsubscribe the address from the account\'s alert e-mails (for good: the account cannot send it an opt-in e-mail again)',
  responses: { 200: page('unsubscribed'), ...LINK_ERRORS },
});
const optIn = createRoute({
  method: 'post', path: '/{id}/recipients/opt-in', tags: TAGS, security: BEARER, middleware: WRITE,
  summary: 'Send a pending address of an e-mail channel a new opt-in e-mail (its earlier link stops working)',
  request: { params: idParam('ach_01jd3k6w9z4q8r2t7v5x1y3b6c'), body: jsonBody(alertEmailOptInRequestSchema) },
  responses: {
    200: jsonOk(alertEmailOptInResultSchema, 'queued (or logged without an SMTP server)'),
    400: jsonError('VALIDATION_FAILED: not an address of this e-mail channel'),
    404: jsonError('ALERT_CHANNEL_NOT_FOUND'),
    409: jsonError('CONFLICT: the address is confirmed already, or unsubscribed (only its recipient decides)'),
    ...AUTH_ERRORS,
    403: jsonError('FORBIDDEN: the credential lacks the required scope, or your role in the channel\'s team cannot change it (a viewer only reads)'),
    429: jsonError('RATE_LIMIT_EXCEEDED: an opt-in e-mail went to the address less than a minute ago, or the account\'s opt-in budget is spent (Retry-After)'),
  },
});

const wantsHtml = (c: Context<AppEnv>) => /\btext\/html\b/i.test(c.req.header('accept') ?? '');

/** A link's answer: the page for a browser (errors too), else the envelope; never cached either way. */
async function answer(c: Context<AppEnv>, run: () => Promise<AlertRecipientLink>, button?: (d: AlertRecipientLink) => string | undefined) {
  for (const [k, v] of Object.entries(PAGE_HEADERS)) c.header(k, v);
  if (!wantsHtml(c)) return ok(c, await run(), 200);
  try {
    const d = await run();
    const title = d.action === 'confirm' ? 'Alert e-mails from Vantage' : 'Stop alert e-mails from Vantage';
    return c.html(recipientPage({ title, lines: [d.message], button: button?.(d) }), 200);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return c.html(recipientPage({ title: 'This link does not work', lines: [err.message] }), err.status as 400);
  }
}

/** A refused token query: a page for a browser, the envelope otherwise. */
function tokenHook(result: { success: boolean; error?: unknown }, c: Context<AppEnv>) {
  if (result.success) return undefined;
  if (!wantsHtml(c)) throw validationError(result.error as ZodError, 'query');
  return c.html(recipientPage({ title: 'This link does not work', lines: ['The link is incomplete: copy the whole link from the e-mail.'] }), 400, PAGE_HEADERS);
}

/**
 * E-mail channel recipients (docs/api/alerting.md "E-mail recipients"), mounted inside the
 * alert-channels router: the public confirm and unsubscribe links (GET shows, POST acts) and the
 * owner's opt-in resend (teams/authorize.ts: a channel the caller cannot read is 404, a team
 * viewer's resend 403); a link acts only on its own account's
 * recipient.
 */
export function emailRecipientsRouter(deps: AppDeps) {
  const r = createRouter();
  const invalid = () => new ApiError('AUTH_INVALID_TOKEN', 'this link is not valid: it may have been replaced by a newer e-mail');

  async function optInHolder(token: string) {
    const holder = await findByOptInHash(deps.sql, optInHash(token));
    if (!holder) throw invalid();
    if (holder.expired && holder.state !== 'confirmed') throw new ApiError('TOKEN_EXPIRED', 'this confirmation link has expired: ask the sender of the alerts for a new opt-in e-mail');
    return holder;
  }
  const confirmedMessage = (address: string) => `${address} receives the alert e-mails of this Vantage account. Every alert e-mail has a link to stop them.`;

  r.openapi(confirmGet, (c) => answer(c, async () => {
    const h = await optInHolder(c.req.valid('query').token);
    const message = h.state === 'confirmed' ? confirmedMessage(h.address)
      : `Receive monitoring alert e-mails of a Vantage account at ${h.address}? Nothing is sent to this address until you confirm.`;
    return { address: h.address, state: h.state, action: 'confirm', message };
  }, (d) => (d.state === 'pending' ? 'Confirm' : undefined)) as never, tokenHook);

  r.openapi(confirmPost, (c) => answer(c, async () => {
    const token = c.req.valid('query').token;
    // Not confirmed now: an expired link of a confirmed address still says so; any other is refused.
    const done = await confirmByOptInHash(deps.sql, optInHash(token)) ?? await optInHolder(token);
    if ('state' in done && done.state !== 'confirmed') throw invalid();
    return { address: done.address, state: 'confirmed', action: 'confirm', message: confirmedMessage(done.address) };
  }) as never, tokenHook);

  async function unsubscribeHolder(token: string) {
    const claim = await checkUnsubscribeToken(await jwtKey(deps), token);
    const found = await recipientsOf(deps.sql, claim.user_id, [claim.address]);
    if (!found) throw invalid();
    return { ...claim, state: recipientViews([claim.address], found)[0]!.state };
  }
  const goneMessage = (address: string) => `${address} gets no more alert e-mails from this Vantage account.`;

  r.openapi(unsubscribeGet, (c) => answer(c, async () => {
    const h = await unsubscribeHolder(c.req.valid('query').token);
    const message = h.state === 'unsubscribed' ? goneMessage(h.address) : `Stop the alert e-mails of this Vantage account to ${h.address}?`;
    return { address: h.address, state: h.state, action: 'unsubscribe', message };
  }, (d) => (d.state === 'unsubscribed' ? undefined : 'Unsubscribe')) as never, tokenHook);

  r.openapi(unsubscribePost, (c) => answer(c, async () => {
    const claim = await checkUnsubscribeToken(await jwtKey(deps), c.req.valid('query').token);
    if (!(await unsubscribeRecipient(deps.sql, claim.user_id, claim.address))) throw invalid();
    return { address: claim.address, state: 'unsubscribed', action: 'unsubscribe', message: goneMessage(claim.address) };
  }) as never, tokenHook);

  r.openapi(optIn, async (c) => {
    const { id } = c.req.valid('param');
    const channel = isId('alert_channel', id) ? await getChannelById(deps.sql, id) : null;
    await authorize(c, deps, channel && ownerOf(channel), 'write', 'ALERT_CHANNEL_NOT_FOUND', 'alert channel');
    return ok(c, await resendOptIn(deps, channel!, c.req.valid('json').address), 200);
  });

  return r;
}
