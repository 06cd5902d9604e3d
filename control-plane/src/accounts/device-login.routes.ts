import { createRoute, z } from '@hono/zod-openapi';
import { DEVICE_LOGIN, deviceAuthorizationSchema, deviceDecisionSchema, devicePendingSchema, deviceRequestSchema, deviceTokenRequestSchema, tokenResponseSchema } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { clientIp } from '../http/client-ip.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';
import { decideDeviceRequest, findPendingDeviceRequest, pollDeviceAuthorization } from './device-login.db.js';
import { chargeUserCodeLookup, normaliseUserCode, startDeviceLogin, unknownUserCode, userCodeHash } from './device-login.js';
import { hashSecret } from './secrets.js';
import { openSession } from './session-tokens.js';

const TAGS = ['auth'];
const userCodeParam = z.object({ user_code: z.string().max(32).openapi({ param: { name: 'user_code', in: 'path' }, example: 'BDFG-HJKL' }) });
const USER_CODE_ERRORS = {
  404: jsonError('NOT_FOUND: no pending request has this code (wrong, expired, approved or denied)'),
  429: jsonError('RATE_LIMIT_EXCEEDED: more than 30 code look-ups in 10 minutes, or the account rate limit'),
};

const start = createRoute({
  method: 'post', path: '/auth/device', operationId: 'startDeviceLogin', tags: TAGS, summary: 'Start a QR-code login (RFC 8628 device authorization): device code, user code, QR code',
  responses: { 200: jsonOk(deviceAuthorizationSchema, 'device authorization response (RFC 8628 3.2) plus `qr_svg`') },
});
const poll = createRoute({
  method: 'post', path: '/auth/device/token', operationId: 'pollDeviceLogin', tags: TAGS, summary: 'Poll a QR-code login: tokens once approved (RFC 8628 3.4-3.5)',
  request: { body: jsonBody(deviceTokenRequestSchema) },
  responses: {
    200: jsonOk(tokenResponseSchema, 'approved: the token response, handed out once'),
    202: jsonOk(devicePendingSchema, 'authorization_pending: nobody has approved yet; poll again after `interval` s'),
    400: jsonError('VALIDATION_FAILED'),
    401: jsonError('AUTH_OTP_EXPIRED (`details.error` expired_token: past 600 s), AUTH_SESSION_INVALID (`details.error` invalid_grant: unknown or already used device code)'),
    403: jsonError('FORBIDDEN (`details.error` access_denied): the signed-in device denied it'),
    429: jsonError('RATE_LIMIT_EXCEEDED (`details.error` slow_down): polled sooner than `interval`; `details.interval` is the new interval, also in Retry-After'),
  },
});
const read = createRoute({
  method: 'get', path: '/account/device/{user_code}', operationId: 'getDeviceLoginRequest', tags: ['account'], security: BEARER, middleware: [requireAuth({ scope: 'read' })],
  summary: 'What a pending QR-code login is: when it started, from which address and browser',
  request: { params: userCodeParam },
  responses: { 200: jsonOk(deviceRequestSchema, 'the pending request'), ...AUTH_ERRORS, ...USER_CODE_ERRORS },
});
const decide = (action: 'approve' | 'deny') => createRoute({
  method: 'post', path: `/account/device/{user_code}/${action}`, operationId: `${action}DeviceLogin`, tags: ['account'], security: BEARER, middleware: [requireAuth({ scope: 'write' })],
  summary: action === 'approve' ? 'Approve a QR-code login: the waiting browser is signed in to this account (sessions only)' : 'Deny a QR-code login (sessions only)',
  request: { params: userCodeParam },
  responses: {
    200: jsonOk(deviceDecisionSchema, action === 'approve' ? 'approved' : 'denied'), ...AUTH_ERRORS,
    403: jsonError('FORBIDDEN: an API key or access token (only a signed-in session decides), or the scope is lacking'), ...USER_CODE_ERRORS,
  },
});

/**
 * QR-code login (docs/api/accounts.md "QR-code login"; RFC 8628 device authorization grant),
 * mounted at `/v1`: `POST /auth/device` starts one (public), `POST /auth/device/token` is what
 * the waiting browser polls (202 pending, 429 slow_down, 200 tokens once approved), and a
 * signed-in session reads (`GET /account/device/{user_code}`), approves or denies it.
 */
export function deviceLoginRouter(deps: AppDeps) {
  const r = createRouter();

  r.openapi(start, async (c) => {
    const user_agent = c.req.header('user-agent')?.slice(0, 512) ?? null;
    return ok(c, await startDeviceLogin(deps, { ip: clientIp(c, deps.config.trust_proxy), user_agent }), 200);
  });

  r.openapi(poll, async (c) => {
    const result = await pollDeviceAuthorization(deps.sql, hashSecret(c.req.valid('json').device_code), DEVICE_LOGIN.slow_down_step_s);
    switch (result.state) {
      case 'approved': return ok(c, await openSession(deps, result.user_id), 200);
      case 'pending':
        if (result.slow_down) {
          throw new ApiError('RATE_LIMIT_EXCEEDED', `slow_down: poll at most every ${result.interval_s} s`, { error: 'slow_down', interval: result.interval_s }, { 'Retry-After': String(result.interval_s) });
        }
        return ok(c, { status: 'authorization_pending' as const, interval: result.interval_s, expires_in: result.expires_in_s }, 202);
      case 'denied': throw new ApiError('FORBIDDEN', 'access_denied: the sign-in request was denied', { error: 'access_denied' });
      case 'expired': throw new ApiError('AUTH_OTP_EXPIRED', 'expired_token: the sign-in request expired; start a new one', { error: 'expired_token' });
      default: throw new ApiError('AUTH_SESSION_INVALID', 'invalid_grant: unknown or already used device code', { error: 'invalid_grant' });
    }
  });

  r.openapi(read, async (c) => {
    await chargeUserCodeLookup(deps, c.get('principal')!.user_id);
    const code = normaliseUserCode(c.req.valid('param').user_code);
    const row = code === null ? null : await findPendingDeviceRequest(deps.sql, await userCodeHash(deps, code));
    if (!row || code === null) throw unknownUserCode();
    return ok(c, {
      user_code: `${code.slice(0, 4)}-${code.slice(4)}`, status: 'pending' as const, created_at: row.created_at.toISOString(),
      expires_at: row.expires_at.toISOString(), requester_ip: row.requester_ip, user_agent: row.user_agent,
    }, 200);
  });

  for (const action of ['approve', 'deny'] as const) {
    r.openapi(decide(action), async (c) => {
      const principal = c.get('principal')!;
      if (principal.kind !== 'session') throw new ApiError('FORBIDDEN', 'only a signed-in session may approve or deny a sign-in request, not an API key or access token');
      await chargeUserCodeLookup(deps, principal.user_id);
      const code = normaliseUserCode(c.req.valid('param').user_code);
      const status = action === 'approve' ? 'approved' as const : 'denied' as const;
      if (code === null || !(await decideDeviceRequest(deps.sql, await userCodeHash(deps, code), principal.user_id, status))) throw unknownUserCode();
      return ok(c, { user_code: `${code.slice(0, 4)}-${code.slice(4)}`, status }, 200);
    });
  }

  return r;
}
