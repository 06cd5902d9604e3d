import { createRoute, z } from '@hono/zod-openapi';
import { heartbeatCheckinAnswerSchema } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { hitRateLimit } from '../db/rate-limit.js';
import { ApiError } from '../errors.js';
import { clientIp } from '../http/client-ip.js';
import { jsonError } from '../http/openapi-responses.js';
import { createRouter } from '../http/router.js';
import { rateLimitHeaders } from '../middleware/rate-limit.js';
import { hashHeartbeatToken } from '../monitors/heartbeat.js';
import { findMonitorByHeartbeatHash } from '../monitors/monitors.db.js';
import { recordCheckin, type Checkin, type CheckinKind } from './heartbeat-checkin.js';
import { readCheckinBody } from './heartbeat-checkin-body.js';

/** Check-ins one token may make per window (docs/api/checks.md "heartbeat"). */
export const HEARTBEAT_CHECKIN_LIMIT = { limit: 60, window_s: 60 } as const;

const TAGS = ['heartbeat'];
const token = z.string().max(100).openapi({ param: { name: 'token', in: 'path' }, example: 'hb_3kTq9ZsV0bW7yN1mX4cR8pL2dF6gH5jA' });
const action = z.string().regex(/^(start|fail|[0-9]{1,3})$/, 'start, fail or an exit status 0-255')
  .refine((a) => !/^[0-9]/.test(a) || Number(a) <= 255, 'an exit status is 0-255')
  .openapi({ param: { name: 'action', in: 'path' }, example: 'start' });
const ANSWER = {
  description: '`OK` (text/plain), or with `Accept: application/json` the success envelope around {ok, kind, ignored}',
  content: { 'text/plain': { schema: z.string().openapi({ example: 'OK' }) }, 'application/json': { schema: z.object({ data: heartbeatCheckinAnswerSchema, request_id: z.string() }) } },
};
const ERRORS = {
  404: jsonError('NOT_FOUND: no heartbeat monitor has this token (also after it was rotated)'),
  429: jsonError('RATE_LIMIT_EXCEEDED: more than 60 check-ins a minute with this token (Retry-After, X-RateLimit-*)'),
};
const DESCRIPTION = 'Public (the token is the credential). GET, POST and HEAD all count, whatever the body (any bytes, any type, any size): a POST body\'s first 10 KB is kept with the check, NUL and bytes that are not UTF-8 replaced by U+FFFD, the rest ignored. Down when a check-in is missed past the grace, or a failure arrives.';

const plain = createRoute({
  method: 'post', path: '/{token}', tags: TAGS, summary: 'Check in: the run succeeded (also GET and HEAD)', description: DESCRIPTION,
  request: { params: z.object({ token }) }, responses: { 200: ANSWER, ...ERRORS },
});
const plainGet = createRoute({ ...plain, method: 'get' });
const variant = createRoute({
  method: 'post', path: '/{token}/{action}', tags: TAGS, description: DESCRIPTION,
  summary: 'Check in: `start` (a run began; its duration is measured to the next check-in), `fail` (the run failed) or an exit status (0 = success, 1-255 = failure); also GET and HEAD',
  request: { params: z.object({ token, action }) }, responses: { 200: ANSWER, 400: jsonError('VALIDATION_FAILED: the variant is not start, fail or 0-255'), ...ERRORS },
});
const variantGet = createRoute({ ...variant, method: 'get' });

function kindOf(a: string | undefined): { kind: CheckinKind; exit_status: number | null } {
  if (a === undefined) return { kind: 'success', exit_status: null };
  if (a === 'start' || a === 'fail') return { kind: a, exit_status: null };
  return { kind: 'exit_status', exit_status: Number(a) };
}

/**
 * The public check-in endpoint of heartbeat monitors, `GET|POST|HEAD /v1/heartbeat/{token}` with
 * `/start`, `/fail` and `/{exit_status}` variants (docs/api/checks.md "heartbeat"). No credential:
 * the token is looked up by its sha256, so a rotated token is unknown at once (404, the only
 * thing an unknown token learns). Each token may check in HEARTBEAT_CHECKIN_LIMIT times per
 * window (429 with Retry-After beyond). `now` is the clock (tests move it).
 */
export function heartbeatCheckinRouter(deps: Pick<AppDeps, 'sql' | 'config'>, now: () => Date = () => new Date()) {
  const r = createRouter();
  const handle = async (c: Parameters<Parameters<typeof r.openapi>[1]>[0], raw_token: string, a: string | undefined) => {
    const monitor = await findMonitorByHeartbeatHash(deps.sql, hashHeartbeatToken(raw_token));
    if (!monitor) throw new ApiError('NOT_FOUND', 'no heartbeat monitor has this check-in token');
    const { limit, window_s } = HEARTBEAT_CHECKIN_LIMIT;
    const counted = await hitRateLimit(deps.sql, `hb:${monitor.id}`, window_s);
    const headers = rateLimitHeaders(limit, counted);
    if (counted.count > limit) throw new ApiError('RATE_LIMIT_EXCEEDED', `at most ${limit} check-ins per ${window_s} s for one token`, { limit, window_s }, headers);
    const method = c.req.method === 'HEAD' ? 'HEAD' : c.req.method === 'POST' ? 'POST' : 'GET';
    const body = method === 'POST' ? await readCheckinBody(c.req.raw) : null;
    const checkin: Checkin = {
      ...kindOf(a), method, body, source_ip: clientIp(c, deps.config.trust_proxy), user_agent: c.req.header('user-agent') ?? null,
    };
    const { ignored } = await recordCheckin(deps.sql, monitor, checkin, now());
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
    c.header('cache-control', 'no-store');
    if (/application\/json/i.test(c.req.header('accept') ?? '')) {
      return c.json({ data: { ok: true as const, kind: checkin.kind, ignored }, request_id: c.get('request_id') }, 200);
    }
    return c.text('OK', 200);
  };
  r.openapi(plain, (c) => handle(c, c.req.valid('param').token, undefined) as never);
  r.openapi(plainGet, (c) => handle(c, c.req.valid('param').token, undefined) as never);
  r.openapi(variant, (c) => handle(c, c.req.valid('param').token, c.req.valid('param').action) as never);
  r.openapi(variantGet, (c) => handle(c, c.req.valid('param').token, c.req.valid('param').action) as never);
  return r;
}
