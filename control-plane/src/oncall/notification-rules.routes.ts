import { createRoute } from '@hono/zod-openapi';
import { oncallNotificationRulesPutSchema, oncallNotificationRulesSchema } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';
import { actorOf } from '../teams/authorize.js';
import { requireAccountActor } from '../teams/team-access.js';
import { boundPhone, notificationRulesOf, personalChannels, replaceNotificationRules } from './notification-rules.db.js';

const TAGS = ['oncall'];
const FORBIDDEN = { 403: jsonError('FORBIDDEN: a workspace token (contact methods are an account\'s own), or a credential without the scope') };

const read = createRoute({
  method: 'get', path: '/', tags: TAGS, security: BEARER, middleware: [requireAuth({ scope: 'read' })],
  summary: 'How you are paged when on call: your contact channels in order (empty: your account e-mail)',
  responses: { 200: jsonOk(oncallNotificationRulesSchema, 'your contact methods'), ...AUTH_ERRORS, ...FORBIDDEN },
});
const put = createRoute({
  method: 'put', path: '/', tags: TAGS, security: BEARER, middleware: [requireAuth({ scope: 'write' })],
  summary: 'Replace your on-call contact methods: up to 5 of your personal email, sms (your bound phone only) or webhook alert channels',
  request: { body: jsonBody(oncallNotificationRulesPutSchema) },
  responses: {
    200: jsonOk(oncallNotificationRulesSchema, 'your contact methods'), ...AUTH_ERRORS, ...FORBIDDEN,
    400: jsonError('VALIDATION_FAILED: a repeated channel, a channel of another type, or an sms channel that sends elsewhere than your bound phone (details.fields)'),
    404: jsonError('ALERT_CHANNEL_NOT_FOUND: not one of your personal alert channels (details.fields)'),
  },
});

/**
 * `/v1/oncall/notification-rules` (docs/api/teams.md "On-call contacts"): read and replace how the
 * caller is paged when it is on call on a schedule. Each entry is one of its own personal alert
 * channels, so its checks are the channels' (channel-config.ts: types, URLs under the outbound
 * address policy, e-mail recipients' opt-in); an `sms` channel must send to the phone number bound
 * to the account (users.phone, set once verified) and nowhere else. A workspace token gets 403.
 */
export function oncallNotificationRulesRouter(deps: AppDeps) {
  const r = createRouter();

  r.openapi(read, async (c) => {
    const actor = await actorOf(c, deps);
    requireAccountActor(actor, 'read an account\'s on-call contact methods');
    return ok(c, { items: (await notificationRulesOf(deps.sql, actor.user_id)).map(({ channel_id, method, name }) => ({ channel_id, method, name })) }, 200);
  });

  r.openapi(put, async (c) => {
    const actor = await actorOf(c, deps);
    requireAccountActor(actor, 'change an account\'s on-call contact methods');
    const { channel_ids } = c.req.valid('json');
    const found = new Map((await personalChannels(deps.sql, actor.user_id, channel_ids)).map((ch) => [ch.id, ch]));
    const missing = channel_ids.flatMap((id, i) => (found.has(id) ? [] : [{ path: `channel_ids[${i}]`, message: 'not one of your personal alert channels' }]));
    if (missing.length > 0) throw new ApiError('ALERT_CHANNEL_NOT_FOUND', `no alert channel ${channel_ids[Number(/\d+/.exec(missing[0]!.path)![0])]}`, { fields: missing });
    const phone = await boundPhone(deps.sql, actor.user_id);
    const bad = channel_ids.flatMap((id, i) => {
      const ch = found.get(id)!;
      const path = `channel_ids[${i}]`;
      if (!['email', 'sms', 'webhook'].includes(ch.type)) return [{ path, message: `a ${ch.type} channel is no contact method: use an email, sms or webhook channel` }];
      if (ch.type !== 'sms') return [];
      const numbers = (ch.config.phone_numbers as string[] | undefined) ?? [];
      if (phone === null) return [{ path, message: 'bind and verify a phone number first (POST /v1/account/phone)' }];
      return numbers.every((n) => n === phone) ? [] : [{ path, message: `an sms contact sends to your bound phone ${phone} only` }];
    });
    if (bad.length > 0) throw new ApiError('VALIDATION_FAILED', `${bad[0]!.path}: ${bad[0]!.message}`, { fields: bad });
    await replaceNotificationRules(deps.sql, actor.user_id, channel_ids);
    return ok(c, { items: (await notificationRulesOf(deps.sql, actor.user_id)).map(({ channel_id, method, name }) => ({ channel_id, method, name })) }, 200);
  });

  return r;
}
