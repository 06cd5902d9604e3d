import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import {
  passkeyListSchema, passkeyRegisterRequestSchema, passkeyRegistrationOptionsSchema, passkeyRenameRequestSchema, passkeySchema,
} from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { findUserById } from './accounts.db.js';
import { finishPasskeyRegistration, startPasskeyRegistration, toPasskey } from './passkeys.js';
import { deletePasskey, listPasskeys, renamePasskey } from './passkeys.db.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { requireAuth } from '../middleware/auth.js';
import { createRouter } from '../http/router.js';

/**
 * Passkeys are login credentials: only a signed-in person (a session) manages them, never an API
 * key or PAT, which could otherwise plant a way into the account (docs/api/accounts.md "Passkeys").
 */
const sessionOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.get('principal')?.kind !== 'session') throw new ApiError('FORBIDDEN', 'passkeys are managed with a session (log in), not with an API key or token');
  await next();
};
const read = [requireAuth({ scope: 'read' }), sessionOnly];
const write = [requireAuth({ scope: 'write' }), sessionOnly];
const idParam = z.object({ id: z.string().max(64).openapi({ param: { name: 'id', in: 'path' }, example: 'pk_01jd3k6w9z4q8r2t7v5x1y3b6c' }) });
const SESSION_ERRORS = { ...AUTH_ERRORS, 403: jsonError('FORBIDDEN: not a session (API keys and tokens cannot manage passkeys)') };

const options = createRoute({
  method: 'post', path: '/options', operationId: 'beginPasskeyRegistration', tags: ['account'], summary: 'Begin registering a passkey: creation options and a challenge id', security: BEARER, middleware: write,
  responses: {
    200: jsonOk(passkeyRegistrationOptionsSchema, '`{ challenge_id, expires_in_s, options }`: pass `options` to PublicKeyCredential.parseCreationOptionsFromJSON and navigator.credentials.create'),
    409: jsonError('CONFLICT: the account holds the most passkeys it may'), ...SESSION_ERRORS,
  },
});
const register = createRoute({
  method: 'post', path: '/', operationId: 'registerPasskey', tags: ['account'], summary: 'Finish registering a passkey: verify the browser\'s credential and store it under a name', security: BEARER, middleware: write,
  request: { body: jsonBody(passkeyRegisterRequestSchema) },
  responses: {
    201: jsonOk(passkeySchema, 'the stored passkey'),
    400: jsonError('AUTH_WEBAUTHN_CHALLENGE_INVALID (unknown, used, expired or another account\'s challenge, or not the one signed), VALIDATION_FAILED (bad body, or the credential does not verify)'),
    409: jsonError('CONFLICT: passkey registered already, or the account holds the most passkeys it may'), ...SESSION_ERRORS,
  },
});
const list = createRoute({
  method: 'get', path: '/', operationId: 'listPasskeys', tags: ['account'], summary: 'List the account\'s passkeys, oldest first', security: BEARER, middleware: read,
  responses: { 200: jsonOk(passkeyListSchema, 'array of passkeys (never their public keys)'), ...SESSION_ERRORS },
});
const rename = createRoute({
  method: 'patch', path: '/{id}', operationId: 'renamePasskey', tags: ['account'], summary: 'Rename a passkey', security: BEARER, middleware: write,
  request: { params: idParam, body: jsonBody(passkeyRenameRequestSchema) },
  responses: { 200: jsonOk(passkeySchema, 'the renamed passkey'), 400: jsonError('VALIDATION_FAILED'), 404: jsonError('NOT_FOUND: no passkey of yours has this id'), ...SESSION_ERRORS },
});
const remove = createRoute({
  method: 'delete', path: '/{id}', operationId: 'deletePasskey', tags: ['account'], summary: 'Delete a passkey: it no longer logs in', security: BEARER, middleware: write,
  request: { params: idParam },
  responses: { 200: jsonOk(z.null(), 'deleted'), 404: jsonError('NOT_FOUND: no passkey of yours has this id'), ...SESSION_ERRORS },
});

/** `/v1/account/passkeys`: register (options, then verify and store), list, rename, delete (docs/api/accounts.md "Passkeys"). */
export function passkeysRouter(deps: AppDeps) {
  const r = createRouter();

  r.openapi(options, async (c) => {
    const user = await findUserById(deps.sql, c.get('principal')!.user_id);
    if (!user) throw new ApiError('ACCOUNT_NOT_FOUND');
    return ok(c, await startPasskeyRegistration(deps, user), 200);
  });

  r.openapi(register, async (c) => {
    const row = await finishPasskeyRegistration(deps, c.get('principal')!.user_id, c.req.valid('json'));
    return ok(c, toPasskey(row), 201);
  });

  r.openapi(list, async (c) => ok(c, (await listPasskeys(deps.sql, c.get('principal')!.user_id)).map(toPasskey), 200));

  r.openapi(rename, async (c) => {
    const row = await renamePasskey(deps.sql, c.get('principal')!.user_id, c.req.valid('param').id, c.req.valid('json').name);
    if (!row) throw new ApiError('NOT_FOUND', 'no such passkey');
    return ok(c, toPasskey(row), 200);
  });

  r.openapi(remove, async (c) => {
    if (!(await deletePasskey(deps.sql, c.get('principal')!.user_id, c.req.valid('param').id))) throw new ApiError('NOT_FOUND', 'no such passkey');
    return ok(c, null, 200);
  });

  return r;
}
