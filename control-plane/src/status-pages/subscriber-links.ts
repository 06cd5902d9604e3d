import { createHmac, timingSafeEqual } from 'node:crypto';
import { jwtKey } from '../accounts/jwt.js';
import type { AppDeps } from '../deps.js';
import { publicLink } from '../email/links.js';

/*
 * The links of a subscriber (docs/api/status-pages.md "Subscribers"): confirm (the opt-in e-mail)
 * and unsubscribe (every notice). Each carries the subscriber id and an HMAC-SHA256 of the action
 * and id under the deployment's signing key, so nothing secret is stored per subscriber and a
 * link works for as long as the subscriber exists.
 */

export type LinkAction = 'confirm' | 'unsubscribe';

async function mac(deps: Pick<AppDeps, 'config' | 'sql'>, action: LinkAction, id: string): Promise<string> {
  return createHmac('sha256', await jwtKey(deps)).update(`status-subscriber:${action}:${id}`).digest('base64url');
}

/** The absolute link for `action` on subscriber `id` of the page `slug`. */
export async function subscriberLink(deps: Pick<AppDeps, 'config' | 'sql'>, slug: string, action: LinkAction, id: string): Promise<string> {
  return publicLink(deps.config, `/status/${slug}/subscribers/${action}`, { id, token: await mac(deps, action, id) });
}

/** Whether `token` is the link token of `action` on subscriber `id`. */
export async function checkSubscriberToken(deps: Pick<AppDeps, 'config' | 'sql'>, action: LinkAction, id: string, token: string): Promise<boolean> {
  const want = Buffer.from(await mac(deps, action, id));
  const got = Buffer.from(token);
  return got.length === want.length && timingSafeEqual(got, want);
}
