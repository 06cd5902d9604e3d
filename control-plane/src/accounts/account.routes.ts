import { createRoute } from '@hono/zod-openapi';
import { accountAdministratorSchema, maskPhone, okDataSchema, profilePatchSchema, profileSchema, secondFactorProofSchema, totpCodeRequestSchema, totpEnabledSchema, totpSetupSchema, type Profile } from '@vantage/shared-protocol';
import type { ZodError } from 'zod';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { checkTotp, newTotpSecret } from './totp.js';
import { issueRecoveryCodes, proveSecondFactor } from './recovery-codes.js';
import { deleteRecoveryCodes } from './recovery-codes.db.js';
import { changeUsername } from './username.js';
import { isAdminUser } from './admin.db.js';
import { disableTotp, enableTotp, findUserById, setTotpPending, updateProfile, type UserRow } from './accounts.db.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { requireAuth } from '../middleware/auth.js';
import { createRouter, validationError } from '../http/router.js';

/** Profile (docs/api/accounts.md) from a users row: the phone always masked (maskPhone), verified once bound. */
export function toProfile(u: UserRow): Profile {
  return {
    id: u.id, email: u.email, email_verified: u.email_verified, username: u.username ?? null, phone: maskPhone(u.phone ?? null), phone_verified: Boolean(u.phone),
    has_password: u.password_hash !== '', display_name: u.display_name, avatar_url: u.avatar_url, bio: u.bio,
    locale: u.locale, timezone: u.timezone, theme: u.theme, status: u.status, two_factor_enabled: u.totp_secret !== null,
  };
}

const read = [requireAuth({ scope: 'read' })];
const write = [requireAuth({ scope: 'write' })];

const getProfile = createRoute({
  method: 'get', path: '/profile', tags: ['account'], summary: 'Current user profile', security: BEARER, middleware: read,
  responses: { 200: jsonOk(profileSchema, 'user profile'), ...AUTH_ERRORS },
});
const patchProfile = createRoute({
  method: 'patch', path: '/profile', tags: ['account'], summary: 'Update the profile', security: BEARER, middleware: write,
  request: { body: jsonBody(profilePatchSchema) },
  responses: { 200: jsonOk(profileSchema, 'updated profile'), 400: jsonError('VALIDATION_FAILED (unknown field, length, username pattern), ACCOUNT_TIMEZONE_INVALID, ACCOUNT_LOCALE_UNSUPPORTED'), 409: jsonError('ACCOUNT_USERNAME_TAKEN'), ...AUTH_ERRORS },
});
const getAdministrator = createRoute({
  method: 'get', path: '/administrator', tags: ['account'], summary: 'Whether the caller is an administrator of the deployment (the /v1/admin routes answer it)', security: BEARER, middleware: read,
  responses: { 200: jsonOk(accountAdministratorSchema, '`{is_admin}`'), ...AUTH_ERRORS },
});
const setup2fa = createRoute({
  method: 'post', path: '/2fa/setup', tags: ['account'], summary: 'Start TOTP two-factor setup: returns the secret and otpauth URI', security: BEARER, middleware: write,
  responses: { 200: jsonOk(totpSetupSchema, 'secret to enter in an authenticator app'), 409: jsonError('CONFLICT: 2FA already enabled'), ...AUTH_ERRORS },
});
const confirm2fa = createRoute({
  method: 'post', path: '/2fa/enable', tags: ['account'], summary: 'Enable 2FA by confirming a code of the pending secret', security: BEARER, middleware: write,
  request: { body: jsonBody(totpCodeRequestSchema) },
  responses: { 200: jsonOk(totpEnabledSchema, '2FA enabled, with 10 recovery codes shown once'), 409: jsonError('AUTH_2FA_SETUP_REQUIRED: no pending secret (call setup first); the same code also answers any other route while a two-factor policy is unmet'), ...AUTH_ERRORS },
});
const disable2fa = createRoute({
  method: 'post', path: '/2fa/disable', tags: ['account'], summary: 'Disable 2FA with a current TOTP code (`code`) or an e-mail code (`email_code`); the recovery codes go too', security: BEARER, middleware: write,
  request: { body: jsonBody(secondFactorProofSchema) },
  responses: { 200: jsonOk(okDataSchema, '2FA disabled'), 409: jsonError('CONFLICT: 2FA not enabled'), ...AUTH_ERRORS, 401: jsonError('AUTH_2FA_INVALID, AUTH_OTP_INVALID, AUTH_OTP_EXPIRED, or a bad credential'), 429: jsonError('AUTH_OTP_ATTEMPTS_EXCEEDED, RATE_LIMIT_EXCEEDED') },
});

/** A PATCH failure on `locale` or `timezone` gets its account code (docs/api/conventions.md), others VALIDATION_FAILED. */
function profileHook(result: { success: boolean; error?: unknown; target?: string }): undefined {
  if (result.success) return undefined;
  const err = validationError(result.error as ZodError, result.target as never);
  const fields = (err.details?.fields ?? []) as Array<{ path: string }>;
  if (fields.length === 1 && fields[0]!.path === 'timezone') throw new ApiError('ACCOUNT_TIMEZONE_INVALID', err.message, err.details);
  if (fields.length === 1 && fields[0]!.path === 'locale') throw new ApiError('ACCOUNT_LOCALE_UNSUPPORTED', err.message, err.details);
  throw err;
}

/** `/v1/account`: profile GET/PATCH, whether the caller is an administrator, and TOTP two-factor setup (docs/api/accounts.md, docs/api/conventions.md). */
export function accountRouter(deps: AppDeps) {
  const r = createRouter();

  async function currentUser(user_id: string): Promise<UserRow> {
    const user = await findUserById(deps.sql, user_id);
    if (!user) throw new ApiError('ACCOUNT_NOT_FOUND');
    return user;
  }

  r.openapi(getProfile, async (c) => ok(c, toProfile(await currentUser(c.get('principal')!.user_id)), 200));

  r.openapi(getAdministrator, async (c) => ok(c, { is_admin: await isAdminUser(deps.sql, c.get('principal')!.user_id, deps.config.admin_emails) }, 200));

  r.openapi(patchProfile, async (c) => {
    const { username, ...changes } = c.req.valid('json');
    if (username !== undefined) await changeUsername(deps.sql, c.get('principal')!.user_id, username);
    const user = await updateProfile(deps.sql, c.get('principal')!.user_id, changes);
    if (!user) throw new ApiError('ACCOUNT_NOT_FOUND');
    return ok(c, toProfile(user), 200);
  }, profileHook);

  r.openapi(setup2fa, async (c) => {
    const user = await currentUser(c.get('principal')!.user_id);
    if (user.totp_secret) throw new ApiError('CONFLICT', 'two-factor authentication is already enabled');
    const setup = newTotpSecret(user.email);
    await setTotpPending(deps.sql, user.id, setup.secret);
    return ok(c, setup, 200);
  });

  r.openapi(confirm2fa, async (c) => {
    const user = await currentUser(c.get('principal')!.user_id);
    if (!user.totp_pending) throw new ApiError('AUTH_2FA_SETUP_REQUIRED', 'call POST /v1/account/2fa/setup first');
    if (!checkTotp(user.totp_pending, c.req.valid('json').code)) throw new ApiError('AUTH_2FA_INVALID', 'wrong two-factor code');
    await enableTotp(deps.sql, user.id, user.totp_pending);
    return ok(c, { ok: true as const, recovery_codes: await issueRecoveryCodes(deps, user.id) }, 200);
  });

  r.openapi(disable2fa, async (c) => {
    const user = await currentUser(c.get('principal')!.user_id);
    if (!user.totp_secret) throw new ApiError('CONFLICT', 'two-factor authentication is not enabled');
    await proveSecondFactor(deps, user, c.req.valid('json'));
    await disableTotp(deps.sql, user.id);
    await deleteRecoveryCodes(deps.sql, user.id);
    return ok(c, { ok: true as const }, 200);
  });

  return r;
}
