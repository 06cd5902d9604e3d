import { createRoute, z } from '@hono/zod-openapi';
import { oauthCallbackQuerySchema, oauthCallbackRequestSchema, oauthProviderListSchema, oauthStartResponseSchema, oauthTwoFactorRequestSchema, tokenResponseSchema } from '@vantage/shared-protocol';
import type { Context } from 'hono';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { completeOAuthTwoFactor, linkFlowLanding, LINK_FINISH_PATH, loginWithOAuth, startOAuth, type OAuthLoginResult } from './oauth.js';

const providerParam = z.object({ provider: z.string().max(32).openapi({ param: { name: 'provider', in: 'path' }, example: 'github' }) });

const CALLBACK_ERRORS = {
  400: jsonError('AUTH_OAUTH_STATE_INVALID (`details.reason`: unknown_or_used, expired, other_provider, other_purpose, provider_refused, provider_answer_invalid, code_missing); VALIDATION_FAILED (provider gave no e-mail)'),
  401: jsonError('AUTH_2FA_REQUIRED `details {mfa_token, expires_in_s}`: the account has two-factor authentication; send its code with the token to POST /v1/auth/oauth/2fa. AUTH_2FA_INVALID: the code given in `otp` is wrong (start again)'),
  403: jsonError('AUTH_ACCOUNT_DISABLED; FORBIDDEN: a new account refused by VANTAGE_REGISTRATION'),
  404: jsonError('NOT_FOUND: no such provider'),
  410: jsonError('ACCOUNT_DELETED: the linked account is scheduled for deletion'),
  409: jsonError('CONFLICT `details {reason: "link_required", link_token, provider, email, expires_in_s}`: an account has this verified e-mail, its owner confirms the link (POST /v1/account/identities/link); ACCOUNT_EMAIL_TAKEN: an account has this e-mail and the provider does not vouch for it'),
  503: jsonError('UNAVAILABLE: the provider cannot be reached'),
};
const CALLBACK_OK = {
  200: jsonOk(tokenResponseSchema, 'token response of an existing account (as POST /v1/auth/login); `meta.created` false'),
  201: jsonOk(tokenResponseSchema, 'token response of an account created for this identity; `meta {created: true, is_admin, verification_email?}`'),
};

const providers = createRoute({
  method: 'get', path: '/providers', tags: ['auth'], summary: 'Sign-in providers configured on this deployment (VANTAGE_OIDC_PROVIDERS)',
  responses: { 200: jsonOk(oauthProviderListSchema, '{providers[]: {id, name, kind}}') },
});
const start = createRoute({
  method: 'post', path: '/{provider}/start', tags: ['auth'], summary: 'Start a sign-in with a provider: authorization URL with state, PKCE (S256) and nonce',
  request: { params: providerParam },
  responses: { 200: jsonOk(oauthStartResponseSchema, '{authorization_url, state, expires_in_s}'), 404: jsonError('NOT_FOUND: no such provider'), 503: jsonError('UNAVAILABLE: the provider cannot be reached') },
});
const callbackPost = createRoute({
  method: 'post', path: '/{provider}/callback', tags: ['auth'], summary: 'Complete a sign-in with the code and state the provider redirected with',
  request: { params: providerParam, body: jsonBody(oauthCallbackRequestSchema) },
  responses: { ...CALLBACK_OK, ...CALLBACK_ERRORS },
});
const callbackGet = createRoute({
  method: 'get', path: '/{provider}/callback', tags: ['auth'], summary: 'The redirect URI: complete a sign-in from the provider\'s redirect query, or hand a link flow to the console',
  request: { params: providerParam, query: oauthCallbackQuerySchema },
  responses: {
    ...CALLBACK_OK,
    303: { description: `the state is a link flow's: to the console's ${LINK_FINISH_PATH}?provider={provider}, with code, state, iss (or error) in the URL fragment; the state stays unused for POST /v1/account/identities/{provider}/callback` },
    ...CALLBACK_ERRORS,
  },
});

const twoFactor = createRoute({
  method: 'post', path: '/2fa', tags: ['auth'], summary: 'Second step of a single sign-on to an account with two-factor authentication: the callback\'s `mfa_token` and the TOTP or a recovery code',
  request: { body: jsonBody(oauthTwoFactorRequestSchema) },
  responses: {
    200: jsonOk(tokenResponseSchema, 'token response (as POST /v1/auth/login); `meta.created` false'),
    400: jsonError('VALIDATION_FAILED: no code, or not an mfa_ token'),
    401: jsonError('AUTH_2FA_INVALID: wrong code, the token serves again for its tries left; AUTH_SESSION_INVALID: unknown, used or expired token, or too many wrong codes (sign in again)'),
    403: jsonError('AUTH_ACCOUNT_DISABLED'),
    410: jsonError('ACCOUNT_DELETED: the account is scheduled for deletion'),
  },
});

/** The success envelope of a login callback: the token response, `meta.created` and for a new account `is_admin` and `verification_email`. */
function envelope(c: Context<AppEnv>, r: OAuthLoginResult) {
  const meta = r.created ? { created: true, is_admin: r.is_admin, ...(r.verification_email ? { verification_email: r.verification_email } : {}) } : { created: false };
  return { data: r.tokens, request_id: c.get('request_id'), meta };
}

/**
 * `/v1/auth/oauth`: single sign-on with the providers of VANTAGE_OIDC_PROVIDERS (docs/api/accounts.md
 * "Single sign-on (OIDC, GitHub)"): the public provider list, flow start, and the callback (POST
 * with a JSON body, or GET as the redirect URI itself, which sends a link flow's browser on to the
 * console's finishing page) answering the token response of
 * `POST /v1/auth/login`, and the second step `POST /2fa` of an account with two-factor authentication.
 */
export function oauthRouter(deps: AppDeps) {
  const r = createRouter();

  r.openapi(providers, async (c) => ok(c, { providers: deps.config.oidc_providers.map((p) => ({ id: p.id, name: p.name, kind: p.kind })) }, 200));

  r.openapi(start, async (c) => ok(c, await startOAuth(deps, c.req.valid('param').provider, null), 200));

  r.openapi(callbackPost, async (c) => {
    const res = await loginWithOAuth(deps, c.req.valid('param').provider, c.req.valid('json'));
    return res.created ? c.json(envelope(c, res), 201) : c.json(envelope(c, res), 200);
  });

  r.openapi(twoFactor, async (c) => c.json(envelope(c, await completeOAuthTwoFactor(deps, c.req.valid('json'))), 200));

  r.openapi(callbackGet, async (c) => {
    const landing = await linkFlowLanding(deps, c.req.valid('param').provider, c.req.valid('query'));
    if (landing) {
      // The request carried the code and state in its query: kept from caches and from the next page's Referer.
      c.header('Cache-Control', 'no-store');
      c.header('Referrer-Policy', 'no-referrer');
      return c.redirect(landing, 303);
    }
    const res = await loginWithOAuth(deps, c.req.valid('param').provider, c.req.valid('query'));
    return res.created ? c.json(envelope(c, res), 201) : c.json(envelope(c, res), 200);
  });

  return r;
}
