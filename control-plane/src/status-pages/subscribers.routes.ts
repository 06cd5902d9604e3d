import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { errorEnvelopeSchema, newWebhookSecret, statusPageSubscribeSchema, statusPageSubscriptionSchema } from '@vantage/shared-protocol';
import { PAGE_HEADERS, recipientPage } from '../alerting/email-recipients.pages.js';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { renderEmail } from '../email/layout.js';
import { publicLink } from '../email/links.js';
import { jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { pageCacheOf } from './page-cache.js';
import { admitted } from './public.routes.js';
import { checkSubscriberToken, subscriberLink, type LinkAction } from './subscriber-links.js';
import { getSubscriber, setSubscriberState, upsertSubscriber } from './subscribers.db.js';

const TAGS = ['status pages (public)'];
const slugParam = z.object({ slug: z.string().max(63).openapi({ param: { name: 'slug', in: 'path' }, example: 'acme' }) });
const linkQuery = z.object({ id: z.string().max(64), token: z.string().max(128) });
const htmlPage = (description: string) => ({ description, content: { 'text/html': { schema: z.string() } } });
const LINK_ERRORS = { 401: { description: 'AUTH_INVALID_TOKEN: the link is not valid', content: { 'application/json': { schema: errorEnvelopeSchema } } } };

const subscribe = createRoute({
  method: 'post', path: '/v1/public/status-pages/{slug}/subscribers', tags: TAGS, description: 'Public. A page that is not public needs its access cookie.',
  summary: 'Subscribe to a page\'s incident notices by e-mail (double opt-in) or webhook (Standard Webhooks)',
  request: { params: slugParam, body: jsonBody(statusPageSubscribeSchema) },
  responses: { 202: jsonOk(statusPageSubscriptionSchema, 'e-mail: the opt-in e-mail is on its way; webhook: subscribed'), 400: jsonError('VALIDATION_FAILED'), 401: jsonError('AUTH_REQUIRED: the page is not public'), 404: jsonError('STATUS_PAGE_NOT_FOUND') },
});
const link = (action: LinkAction, method: 'get' | 'post') => createRoute({
  method, path: `/status/{slug}/subscribers/${action}`, tags: TAGS, description: 'Public: the link\'s token is the credential. GET shows a button (mail scanners open links); POST acts (and is the one-click unsubscribe of RFC 8058).',
  summary: action === 'confirm' ? (method === 'get' ? 'The opt-in link: shows a Confirm button' : 'Confirm an e-mail subscription') : (method === 'get' ? 'The unsubscribe link: shows a button' : 'Unsubscribe'),
  request: { params: slugParam, query: linkQuery }, responses: { 200: htmlPage('the page'), ...LINK_ERRORS },
});

/**
 * Status page subscribers (docs/api/status-pages.md "Subscribers"): the public subscribe call and
 * the confirm and unsubscribe links. An e-mail subscription is pending until its opt-in link is
 * confirmed (double opt-in); asking again for a pending address sends the e-mail again, for a
 * confirmed or unsubscribed one nothing (the answer is the same, so it reveals nothing).
 */
export function statusPageSubscribersRouter(deps: AppDeps) {
  const r = createRouter();
  const cache = pageCacheOf(deps);

  r.openapi(subscribe, async (c) => {
    const { slug } = c.req.valid('param');
    const body = c.req.valid('json');
    const hit = await cache.bySlug(slug);
    if (!hit) throw new ApiError('STATUS_PAGE_NOT_FOUND', `no status page at /status/${slug}`);
    if (!admitted(c, hit.page)) throw new ApiError('AUTH_REQUIRED', 'this status page is protected by a password');
    const page = hit.page;
    if (body.webhook_url !== undefined) {
      const { row, created } = await upsertSubscriber(deps.sql, { page_id: page.id, kind: 'webhook', address: body.webhook_url, secret: newWebhookSecret(), state: 'confirmed' });
      if (!created && row.state === 'confirmed') return ok(c, { kind: 'webhook' as const, state: 'confirmed' as const, message: 'this URL is subscribed already: its secret was shown when it subscribed' }, 202);
      if (!created) await setSubscriberState(deps.sql, row.id, 'confirmed');
      return ok(c, {
        kind: 'webhook' as const, state: 'confirmed' as const, id: row.id, secret: row.secret!,
        unsubscribe_url: await subscriberLink(deps, page.slug, 'unsubscribe', row.id), message: 'subscribed: notices are signed with this secret (shown only now)',
      }, 202);
    }
    const address = body.email!.toLowerCase();
    const { row } = await upsertSubscriber(deps.sql, { page_id: page.id, kind: 'email', address, secret: null, state: 'pending' });
    if (row.state === 'pending') {
      const rendered = renderEmail({
        subject: `Confirm your subscription to ${page.title}`,
        paragraphs: [`Someone (we hope you) asked for e-mails about incidents on ${page.title} at ${address}.`, 'Nothing is sent until you confirm. If it was not you, ignore this e-mail.'],
        action: { label: 'Confirm the subscription', url: await subscriberLink(deps, page.slug, 'confirm', row.id) },
        footer: `Status page: ${publicLink(deps.config, `/status/${page.slug}`)}`,
      });
      await deps.mail.send({ ...rendered, to: address, user_id: page.user_id, kind: 'status_page.subscribe' });
    }
    return ok(c, { kind: 'email' as const, state: 'pending' as const, message: `if ${address} is not subscribed yet, a confirmation e-mail is on its way` }, 202);
  });

  async function holder(c: Context<AppEnv>, action: LinkAction) {
    const { id, token } = c.req.valid('query' as never) as { id: string; token: string };
    const sub = await getSubscriber(deps.sql, id);
    if (!sub || !(await checkSubscriberToken(deps, action, id, token))) throw new ApiError('AUTH_INVALID_TOKEN', 'this link is not valid');
    return sub;
  }
  const page = (c: Context<AppEnv>, title: string, lines: string[], button?: string) => c.html(recipientPage({ title, lines, button }), 200, PAGE_HEADERS);
  const subject = (s: { kind: string; address: string }) => (s.kind === 'email' ? s.address : `the webhook ${s.address}`);

  r.openapi(link('confirm', 'get'), async (c) => {
    const s = await holder(c, 'confirm');
    return (s.state === 'pending' ? page(c, 'Confirm your subscription', [`Send incident notices to ${subject(s)}?`], 'Confirm')
      : page(c, 'Subscription', [`${subject(s)} is ${s.state === 'confirmed' ? 'subscribed' : 'unsubscribed'}.`])) as never;
  });
  r.openapi(link('confirm', 'post'), async (c) => {
    const s = await holder(c, 'confirm');
    if (s.state === 'pending') await setSubscriberState(deps.sql, s.id, 'confirmed');
    return page(c, 'Subscription', [s.state === 'unsubscribed' ? `${subject(s)} unsubscribed: subscribe again on the status page.` : `${subject(s)} is subscribed. Every notice has a link to stop them.`]) as never;
  });
  r.openapi(link('unsubscribe', 'get'), async (c) => {
    const s = await holder(c, 'unsubscribe');
    return (s.state === 'unsubscribed' ? page(c, 'Unsubscribed', [`${subject(s)} gets no more notices.`]) : page(c, 'Unsubscribe', [`Stop incident notices to ${subject(s)}?`], 'Unsubscribe')) as never;
  });
  r.openapi(link('unsubscribe', 'post'), async (c) => {
    const s = await holder(c, 'unsubscribe');
    await setSubscriberState(deps.sql, s.id, 'unsubscribed');
    return page(c, 'Unsubscribed', [`${subject(s)} gets no more notices.`]) as never;
  });

  return r;
}
