import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import {
  alertChannelCreatedSchema, alertChannelCreateSchema, alertChannelListSchema, alertOwnerQuerySchema, alertChannelPatchSchema, alertChannelSchema, alertChannelTestResultSchema,
  isId, newId, newWebhookSecret,
} from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { createOutboundPolicy, type OutboundPolicy } from '../delivery/outbound-policy.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';
import { authorize, ownerForNew, ownerScope } from '../teams/authorize.js';
import type { Access } from '../teams/roles.js';
import { deleteChannel, getChannelById, insertChannel, listChannels, policiesUsingChannel, updateChannel, type AlertChannelRow } from './alert-channels.db.js';
import { ownerAfterMove } from '../teams/move.js';
import { notificationState } from './alert-deliveries.db.js';
import { mergeConfig, validateChannelConfig } from './channel-config.js';
import { channelAddresses, channelViews, planRecipients, storeRecipients } from './email-recipients.js';
import { emailRecipientsRouter } from './email-recipients.routes.js';
import { queueNotification, testNotification } from './notify.js';
import { ownerOf } from './route-kit.js';
import { ALERT_TEST_SEND_LIMIT, chargeAccount } from './send-limits.js';

const read = [requireAuth({ scope: 'read' })];
const write = [requireAuth({ scope: 'write' })];
const TAGS = ['alerting'];
const idParam = z.object({ id: z.string().max(64).openapi({ param: { name: 'id', in: 'path' }, example: 'ach_01jd3k6w9z4q8r2t7v5x1y3b6c' }) });
const NOT_FOUND = { 404: jsonError('ALERT_CHANNEL_NOT_FOUND: no such channel you can read (another account\'s or another team\'s is not found either)') };
const FORBIDDEN = { 403: jsonError('FORBIDDEN: the credential lacks the required scope, or your role in the channel\'s team cannot change it (a viewer only reads); details team_id, role, required_role') };
const TEAM = { 404: jsonError('TEAM_NOT_FOUND: team_id is not a team of yours'), 403: jsonError('FORBIDDEN: the credential lacks the required scope, or your role in that team (viewer) cannot create in it') };
const INVALID = { 400: jsonError('VALIDATION_FAILED, or ALERT_CHANNEL_INVALID: the config does not fit the type (details.fields names each field), or a URL is refused by the address policy (details.setting names the operator setting that opens a range)') };
const OPT_IN_LIMITED = { 429: jsonError('RATE_LIMIT_EXCEEDED: new e-mail addresses would pass the account\'s opt-in e-mail budget, or the request rate limit (Retry-After); nothing is saved') };

const list = createRoute({
  method: 'get', path: '/', tags: TAGS, security: BEARER, middleware: read, summary: 'The alert channels you can read, yours and your teams\' (secrets masked), oldest first (`team_id` filters)',
  request: { query: alertOwnerQuerySchema }, responses: { 200: jsonOk(alertChannelListSchema, 'the channels'), ...AUTH_ERRORS },
});
const create = createRoute({
  method: 'post', path: '/', tags: TAGS, security: BEARER, middleware: write,
  summary: 'Create an alert channel: name, type (email, webhook, slack, discord, telegram, wecom, dingtalk, feishu, wechat, sms, pagerduty) and its config',
  description: 'An e-mail address other than the account\'s own verified one is pending: it gets one opt-in e-mail and nothing else until its recipient confirms (recipients[] shows each state). A webhook channel created without config.secret gets a generated one, returned once as `secret`.',
  request: { body: jsonBody(alertChannelCreateSchema) },
  responses: { 201: jsonOk(alertChannelCreatedSchema, 'the channel (secrets masked, verified false), with `secret` when one was generated'), ...INVALID, ...AUTH_ERRORS, ...TEAM, ...OPT_IN_LIMITED },
});
const readOne = createRoute({
  method: 'get', path: '/{id}', tags: TAGS, security: BEARER, middleware: read, summary: 'One alert channel (secrets masked)',
  request: { params: idParam }, responses: { 200: jsonOk(alertChannelSchema, 'the channel'), ...NOT_FOUND, ...AUTH_ERRORS },
});
const patch = createRoute({
  method: 'patch', path: '/{id}', tags: TAGS, security: BEARER, middleware: write,
  summary: 'Rename a channel, change its config (merged field by field over the stored one; a config change clears verified) or move it (team_id)',
  description: 'New e-mail addresses get one opt-in e-mail each, as on create.',
  request: { params: idParam, body: jsonBody(alertChannelPatchSchema) },
  responses: {
    200: jsonOk(alertChannelSchema, 'the updated channel'), ...INVALID, ...NOT_FOUND, ...AUTH_ERRORS, ...FORBIDDEN, ...OPT_IN_LIMITED,
    409: jsonError('CONFLICT: a move (team_id) of a channel alert policies use (details.policy_ids)'),
  },
});
const remove = createRoute({
  method: 'delete', path: '/{id}', tags: TAGS, security: BEARER, middleware: write,
  summary: 'Delete a channel no policy uses (409 CONFLICT names the policies that do)',
  request: { params: idParam },
  responses: { 200: jsonOk(z.null(), 'deleted'), 409: jsonError('CONFLICT: alert policies use the channel'), ...NOT_FOUND, ...AUTH_ERRORS, ...FORBIDDEN },
});
const test = createRoute({
  method: 'post', path: '/{id}/test', tags: TAGS, security: BEARER, middleware: write,
  summary: 'Send a test notification through the delivery engine and wait for its first attempt; success marks the channel verified',
  description: 'At most 10 test sends per account per 10 minutes. An e-mail channel sends only to confirmed recipients.',
  request: { params: idParam },
  responses: {
    200: jsonOk(alertChannelTestResultSchema, 'the outcome (status pending when the first attempt has not ended in time)'), ...NOT_FOUND, ...AUTH_ERRORS, ...FORBIDDEN,
    429: jsonError('RATE_LIMIT_EXCEEDED: the account\'s test sends per 10 minutes, or the request rate limit (Retry-After)'),
  },
});

/** How long the test route waits between looks at its delivery. */
const TEST_POLL_MS = 100;

/**
 * `/v1/alert-channels` (docs/api/alerting.md "Channels"): list, create, read, patch, delete and
 * test, and the e-mail recipients' routes (email-recipients.routes.ts). Configs are validated per
 * type (ALERT_CHANNEL_INVALID) and their URLs against the outbound address policy; secrets are
 * only ever returned masked, except a webhook channel's secret generated on create (returned once); new e-mail addresses are stored with their state and sent an opt-in
 * e-mail in the save's transaction; test sends are limited per account (ALERT_TEST_SEND_LIMIT);
 * every access decides through teams/authorize.ts: another account's or team's channel is 404
 * ALERT_CHANNEL_NOT_FOUND, a team viewer's change 403 FORBIDDEN. A channel's e-mail recipients
 * are those of its creator's account (its user_id), whoever edits it.
 */
export function alertChannelsRouter(deps: AppDeps, policy: OutboundPolicy = createOutboundPolicy(deps.config)) {
  const r = createRouter();
  const notFound = (id: string) => new ApiError('ALERT_CHANNEL_NOT_FOUND', `no alert channel ${id}`);

  /** The channel `id` once the caller may `access` it (404 / 403 otherwise: teams/authorize.ts). */
  async function owned(c: Context<AppEnv>, id: string, access: Access): Promise<AlertChannelRow> {
    const row = isId('alert_channel', id) ? await getChannelById(deps.sql, id) : null;
    await authorize(c, deps, row && ownerOf(row), access, 'ALERT_CHANNEL_NOT_FOUND', 'alert channel');
    return row!;
  }

  const view = async (row: AlertChannelRow) => (await channelViews(deps.sql, row.user_id, [row]))[0]!;

  r.openapi(list, async (c) => {
    const rows = await listChannels(deps.sql, await ownerScope(c, deps, 'read', c.req.valid('query').team_id));
    // E-mail recipients are per creator's account: one read per creator.
    const creators = [...new Set(rows.map((row) => row.user_id))];
    const views = new Map((await Promise.all(creators.map((u) => channelViews(deps.sql, u, rows.filter((row) => row.user_id === u))))).flat().map((v) => [v.id, v]));
    return ok(c, { items: rows.map((row) => views.get(row.id)!) }, 200);
  });

  r.openapi(create, async (c) => {
    const body = c.req.valid('json');
    const owner = await ownerForNew(c, deps, body.team_id);
    const user_id = owner.user_id;
    // A webhook channel's signing secret is made here when omitted, as for webhook endpoints: shown once.
    const generated = body.type === 'webhook' && body.config.secret === undefined ? newWebhookSecret() : undefined;
    const config = await validateChannelConfig(body.type, generated ? { ...body.config, secret: generated } : body.config, policy);
    const plan = body.type === 'email' ? await planRecipients(deps, user_id, channelAddresses(config)) : null;
    const row = await deps.sql.begin(async (tx) => {
      const inserted = await insertChannel(tx, { id: newId('alert_channel'), user_id, team_id: owner.team_id, name: body.name, type: body.type, config });
      if (plan) await storeRecipients(deps, tx, user_id, inserted.name, plan);
      return inserted;
    });
    return ok(c, generated ? { ...(await view(row)), secret: generated } : await view(row), 201);
  });

  r.openapi(readOne, async (c) => ok(c, await view(await owned(c, c.req.valid('param').id, 'read')), 200));

  r.openapi(patch, async (c) => {
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    const current = await owned(c, id, 'write');
    const user_id = current.user_id;
    // A move (team_id: docs/api/teams.md "Moving a resource"); a channel a policy uses stays with the policy's owner.
    const { owner, moved } = await ownerAfterMove(c, deps, ownerOf(current), body.team_id, 'alert channel');
    const users = moved ? await policiesUsingChannel(deps.sql, id) : [];
    if (users.length > 0) throw new ApiError('CONFLICT', `alert policies use the channel: ${users.join(', ')}; it cannot change owner`, { policy_ids: users });
    const config = body.config ? await validateChannelConfig(current.type, mergeConfig(current.type, current.config, body.config), policy) : undefined;
    const changed = config && JSON.stringify(config) !== JSON.stringify(current.config) ? config : undefined;
    const plan = changed && current.type === 'email' ? await planRecipients(deps, user_id, channelAddresses(changed)) : null;
    const row = await deps.sql.begin(async (tx) => {
      const updated = await updateChannel(tx, id, { name: body.name, config: changed, team_id: moved ? owner.team_id : undefined });
      if (updated && plan) await storeRecipients(deps, tx, user_id, updated.name, plan);
      return updated;
    });
    if (!row) throw notFound(id);
    return ok(c, await view(row), 200);
  });

  r.openapi(remove, async (c) => {
    const { id } = c.req.valid('param');
    await owned(c, id, 'write');
    const result = await deleteChannel(deps.sql, id);
    if (result === 'missing') throw notFound(id);
    if (result !== 'deleted') throw new ApiError('CONFLICT', `alert policies use the channel: ${result.policy_ids.join(', ')}`, { policy_ids: result.policy_ids });
    return ok(c, null, 200);
  });

  r.openapi(test, async (c) => {
    const { id } = c.req.valid('param');
    const user_id = c.get('principal')!.user_id;
    const channel = await owned(c, id, 'write');
    await chargeAccount(deps.sql, user_id, ALERT_TEST_SEND_LIMIT);
    const { delivery_id } = await queueNotification(deps.sql, deps.config, channel, testNotification(channel));
    // The first attempt has the engine's deadline; the worker may first need a poll interval to see it.
    const until = Date.now() + deps.config.delivery_timeout_ms + deps.config.delivery_poll_interval_ms + 2000;
    let state = await notificationState(deps.sql, delivery_id);
    while (state && state.status === 'pending' && state.attempts === 0 && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, TEST_POLL_MS));
      state = await notificationState(deps.sql, delivery_id);
    }
    const after = await getChannelById(deps.sql, id);
    const status = !state ? 'failed' : state.status === 'pending' && state.attempts > 0 ? 'failed' : state.status;
    return ok(c, {
      delivery_id, status: state && state.status === 'pending' && state.attempts === 0 ? 'pending' : status,
      attempts: state?.attempts ?? 0, status_code: state?.status_code ?? null, error: state?.last_error ?? null, verified: after?.verified ?? false,
    }, 200);
  });

  r.route('/', emailRecipientsRouter(deps));
  return r;
}
