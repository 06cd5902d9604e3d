import { createRoute } from '@hono/zod-openapi';
import { passkeyLoginOptionsRequestSchema, passkeyLoginOptionsSchema, passkeyLoginRequestSchema, tokenResponseSchema } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { finishPasskeyLogin, startPasskeyLogin } from './passkeys.js';
import { openSession } from './session-tokens.js';
import { jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';

const options = createRoute({
  method: 'post', path: '/options', operationId: 'beginPasskeyLogin', tags: ['auth'], summary: 'Begin a passkey login: request options and a challenge id',
  request: { body: jsonBody(passkeyLoginOptionsRequestSchema) },
  responses: {
    200: jsonOk(passkeyLoginOptionsSchema, '`{ challenge_id, expires_in_s, options }`: pass `options` to PublicKeyCredential.parseRequestOptionsFromJSON and navigator.credentials.get'),
    400: jsonError('VALIDATION_FAILED'),
  },
});
const login = createRoute({
  method: 'post', path: '/login', operationId: 'loginWithPasskey', tags: ['auth'], summary: 'Log in with a passkey: verify the browser\'s assertion',
  request: { body: jsonBody(passkeyLoginRequestSchema) },
  responses: {
    200: jsonOk(tokenResponseSchema, 'token response, as POST /v1/auth/login'),
    400: jsonError('AUTH_WEBAUTHN_CHALLENGE_INVALID (unknown, used, expired or registration challenge, or not the one signed), VALIDATION_FAILED'),
    401: jsonError('AUTH_CREDENTIALS_INVALID: unknown passkey, another account\'s than the e-mail named, bad signature, signature counter not increasing'),
    403: jsonError('AUTH_ACCOUNT_DISABLED'),
  },
});

/** `/v1/auth/passkeys`: public passkey login, options then assertion (docs/api/accounts.md "Passkeys"). */
export function passkeyLoginRouter(deps: AppDeps) {
  const r = createRouter();
  r.openapi(options, async (c) => ok(c, await startPasskeyLogin(deps, c.req.valid('json').email), 200));
  r.openapi(login, async (c) => ok(c, await openSession(deps, await finishPasskeyLogin(deps, c.req.valid('json'))), 200));
  return r;
}
