import { createRoute, z } from '@hono/zod-openapi';
import { oauthIdentityListSchema, oauthIdentitySchema, oauthLinkCallbackRequestSchema, oauthLinkConfirmRequestSchema, oauthStartResponseSchema } from '@vantage/shared-protocol';
import type { Context } from 'hono';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { requireAuth } from '../middleware/auth.js';
import { createRouter } from '../http/router.js';
import { confirmLinkOffer, linkWithOAuth, startOAuth, toIdentity } from './oauth.js';
import { deleteIdentityUnlessLast, listIdentities } from './oauth.db.js';

const read = [requireAuth({ scope: 'read' })];
const write = [requireAuth({ scope: 'write' })];
const providerParam = z.object({ provider: z.string().max(32).openapi({ param: { name: 'provider', in: 'path' }, example: 'github' }) });
const idParam = z.object({ id: z.string().max(64).openapi({ param: { name: 'id', in: 'path' }, example: 'idn_01jd3k6w9z4q8r2t7v5x1y3b6c' }) });
const SESSION_ONLY = jsonError('FORBIDDEN: missing scope, or not a session (linking and unlinking sign-in methods needs the account owner signed in, not an API key or token)');

const list = createRoute({
  method: 'get', path: '/', tags: ['account'], summary: 'Provider identities linked to the account, oldest first', security: BEARER, middleware: read,
  responses: { 200: jsonOk(oauthIdentityListSchema, '{identities[]}'), ...AUTH_ERRORS },
});
const start = createRoute({
  method: 'post', path: '/{provider}/start', tags: ['account'], summary: 'Start linking a provider identity to the signed-in account', security: BEARER, middleware: write,
  request: { params: providerParam },
  responses: { 200: jsonOk(oauthStartResponseSchema, '{authorization_url, state, expires_in_s}'), ...AUTH_ERRORS, 403: SESSION_ONLY, 404: jsonError('NOT_FOUND: no such provider'), 503: jsonError('UNAVAILABLE: the provider cannot be reached') },
});
const callback = createRoute({
  method: 'post', path: '/{provider}/callback', tags: ['account'], summary: 'Complete a link flow with the code and state the provider redirected with', security: BEARER, middleware: write,
  request: { params: providerParam, body: jsonBody(oauthLinkCallbackRequestSchema) },
  responses: {
    200: jsonOk(oauthIdentitySchema, 'already linked to this account'), 201: jsonOk(oauthIdentitySchema, 'linked'), ...AUTH_ERRORS, 403: SESSION_ONLY,
    400: jsonError('AUTH_OAUTH_STATE_INVALID (`details.reason`; a state of a login or of another account: other_purpose)'), 404: jsonError('NOT_FOUND: no such provider'),
    409: jsonError('AUTH_OAUTH_LINKED_OTHER_USER'), 503: jsonError('UNAVAILABLE: the provider cannot be reached'),
  },
});
const confirm = createRoute({
  method: 'post', path: '/link', tags: ['account'], summary: 'Confirm the link a provider sign-in offered (`details.link_token` of its 409)', security: BEARER, middleware: write,
  request: { body: jsonBody(oauthLinkConfirmRequestSchema) },
  responses: {
    200: jsonOk(oauthIdentitySchema, 'already linked to this account'), 201: jsonOk(oauthIdentitySchema, 'linked'), ...AUTH_ERRORS, 403: SESSION_ONLY,
    400: jsonError('AUTH_OAUTH_STATE_INVALID: unknown, used or expired link token, or one offered to another account'), 404: jsonError('NOT_FOUND: the provider is no longer configured'),
    409: jsonError('AUTH_OAUTH_LINKED_OTHER_USER'),
  },
});
const unlink = createRoute({
  method: 'delete', path: '/{id}', tags: ['account'], summary: 'Unlink a provider identity (not the account\'s last way to log in)', security: BEARER, middleware: write,
  request: { params: idParam },
  responses: { 200: jsonOk(z.null(), 'unlinked'), ...AUTH_ERRORS, 403: SESSION_ONLY, 404: jsonError('NOT_FOUND: no such identity of yours'), 409: jsonError('CONFLICT: the last way to log in (no password, passkey or other identity)') },
});

/** The signed-in user of a session, or 403 FORBIDDEN for an API key or PAT. */
function sessionUser(c: Context<AppEnv>): string {
  const principal = c.get('principal')!;
  if (principal.kind !== 'session') throw new ApiError('FORBIDDEN', 'linking and unlinking sign-in methods needs a session of the account owner, not an API key or token');
  return principal.user_id;
}

/**
 * `/v1/account/identities`: provider identities linked to the account (docs/api/accounts.md
 * "Single sign-on (OIDC, GitHub)"): list; link by a flow started signed in or by confirming the
 * offer of a provider sign-in whose verified e-mail is this account's; unlink, never the last way
 * to log in. Changes need a session: an API key cannot add or remove a way into the account.
 */
export function oauthIdentitiesRouter(deps: AppDeps) {
  const r = createRouter();

  r.openapi(list, async (c) => {
    const rows = await listIdentities(deps.sql, c.get('principal')!.user_id);
    return ok(c, { identities: rows.map((row) => toIdentity(deps, row)) }, 200);
  });

  r.openapi(start, async (c) => ok(c, await startOAuth(deps, c.req.valid('param').provider, sessionUser(c)), 200));

  r.openapi(callback, async (c) => {
    const { identity, created } = await linkWithOAuth(deps, sessionUser(c), c.req.valid('param').provider, c.req.valid('json'));
    return created ? ok(c, identity, 201) : ok(c, identity, 200);
  });

  r.openapi(confirm, async (c) => {
    const { identity, created } = await confirmLinkOffer(deps, sessionUser(c), c.req.valid('json').link_token);
    return created ? ok(c, identity, 201) : ok(c, identity, 200);
  });

  r.openapi(unlink, async (c) => {
    const outcome = await deleteIdentityUnlessLast(deps.sql, sessionUser(c), c.req.valid('param').id);
    if (outcome === 'not_found') throw new ApiError('NOT_FOUND', 'no such identity');
    if (outcome === 'last_login_method') throw new ApiError('CONFLICT', 'this identity is the account\'s last way to log in: set a password or link another provider first', { reason: 'last_login_method' });
    return ok(c, null, 200);
  });

  return r;
}
