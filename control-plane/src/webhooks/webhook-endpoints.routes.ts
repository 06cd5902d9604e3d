import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import {
  WEBHOOK_LIMITS, isId, newId, newWebhookSecret,
  webhookDeliverySchema, webhookEndpointCreatedSchema, webhookEndpointCreateSchema, webhookEndpointListQuerySchema, webhookEndpointListSchema,
  webhookEndpointPatchSchema, webhookEndpointSchema, webhookSecretRotatedSchema,
} from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { createOutboundPolicy, refusalDetails, refuseOutboundUrl, type OutboundPolicy } from '../delivery/outbound-policy.js';
import { getDeliveryByMessage } from '../delivery/delivery-log.db.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';
import type { Access } from '../teams/roles.js';
import { authorize, ownerForNew, ownerScope } from '../teams/authorize.js';
import { ownerAfterMove } from '../teams/move.js';
import { queueEvent } from './publisher.js';
import { toDelivery, toEndpoint } from './views.js';
import {
  countEndpoints, deleteEndpoint, getEndpointById, insertEndpoint, listEndpoints, rotateSecret, updateEndpoint, WEBHOOK_CHANNEL, type EndpointRow,
} from './webhook-endpoints.db.js';

const read = [requireAuth({ scope: 'read' })];
const write = [requireAuth({ scope: 'write' })];
const TAGS = ['webhooks'];
/** Path parameter `id`: a `we_` id; anything else is simply not found. */
export const endpointIdParam = z.object({ id: z.string().max(64).openapi({ param: { name: 'id', in: 'path' }, example: 'we_01jd3k6w9z4q8r2t7v5x1y3b6c' }) });
const NOT_FOUND = { 404: jsonError('NOT_FOUND: no such endpoint you can read (another account\'s or another team\'s endpoint is not found either)') };
const FORBIDDEN = { 403: jsonError('FORBIDDEN: a team\'s endpoint and a role that cannot change it (viewer); details: team_id, role, required_role') };
const URL_REFUSED = { 422: jsonError('WEBHOOK_URL_NOT_ALLOWED: the URL\'s host is or resolves to a private or reserved address (details.setting names the operator setting that opens a range), or does not resolve') };

const create = createRoute({
  method: 'post', path: '/', tags: TAGS, security: BEARER, middleware: write,
  summary: 'Create a webhook endpoint; the signing secret is returned once',
  request: { body: jsonBody(webhookEndpointCreateSchema) },
  responses: {
    ...AUTH_ERRORS,
    201: jsonOk(webhookEndpointCreatedSchema, '{endpoint, secret}: `secret` (whsec_…) is shown only here'),
    400: jsonError('VALIDATION_FAILED'),
    403: jsonError('FORBIDDEN: the credential lacks the required scope, or team_id names a team where the caller\'s role cannot create (viewer)'),
    404: jsonError('TEAM_NOT_FOUND: team_id names a team the caller is not a member of'),
    422: jsonError('WEBHOOK_URL_NOT_ALLOWED (private or reserved address: details.setting names the operator setting that opens a range), WEBHOOK_ENDPOINT_LIMIT_EXCEEDED'),
  },
});
const list = createRoute({
  method: 'get', path: '/', tags: TAGS, security: BEARER, middleware: read, summary: 'The webhook endpoints you can read (yours and your teams\'; ?team_id= one team\'s), oldest first',
  request: { query: webhookEndpointListQuerySchema },
  responses: { 200: jsonOk(webhookEndpointListSchema, '{items[], total, page, page_size, has_more}'), 400: jsonError('VALIDATION_FAILED'), ...AUTH_ERRORS },
});
const readOne = createRoute({
  method: 'get', path: '/{id}', tags: TAGS, security: BEARER, middleware: read, summary: 'One webhook endpoint (never its secret)',
  request: { params: endpointIdParam },
  responses: { 200: jsonOk(webhookEndpointSchema, 'the endpoint'), ...NOT_FOUND, ...AUTH_ERRORS },
});
const patch = createRoute({
  method: 'patch', path: '/{id}', tags: TAGS, security: BEARER, middleware: write,
  summary: 'Change url, events, description or enabled (enabling clears the failure state), or move it (team_id)',
  request: { params: endpointIdParam, body: jsonBody(webhookEndpointPatchSchema) },
  responses: {
    200: jsonOk(webhookEndpointSchema, 'the updated endpoint'), 400: jsonError('VALIDATION_FAILED'), ...FORBIDDEN, ...NOT_FOUND, ...AUTH_ERRORS,
    422: jsonError('WEBHOOK_URL_NOT_ALLOWED: the URL\'s host is or resolves to a private or reserved address, or does not resolve; WEBHOOK_ENDPOINT_LIMIT_EXCEEDED: a move (team_id) to an owner that has 50 endpoints'),
  },
});
const remove = createRoute({
  method: 'delete', path: '/{id}', tags: TAGS, security: BEARER, middleware: write,
  summary: 'Delete a webhook endpoint with its deliveries; nothing more is sent to it',
  request: { params: endpointIdParam },
  responses: { 200: jsonOk(z.null(), 'deleted'), ...FORBIDDEN, ...NOT_FOUND, ...AUTH_ERRORS },
});
const rotate = createRoute({
  method: 'post', path: '/{id}/rotate-secret', tags: TAGS, security: BEARER, middleware: write,
  summary: 'New signing secret (returned once); the previous one keeps signing alongside it for 24 h',
  request: { params: endpointIdParam },
  responses: { 200: jsonOk(webhookSecretRotatedSchema, '{endpoint, secret, previous_secret_expires_at}'), ...FORBIDDEN, ...NOT_FOUND, ...AUTH_ERRORS },
});
const test = createRoute({
  method: 'post', path: '/{id}/test', tags: TAGS, security: BEARER, middleware: write,
  summary: 'Send a `webhook.ping` event to the endpoint now (whatever it subscribes to)',
  request: { params: endpointIdParam },
  responses: {
    202: jsonOk(webhookDeliverySchema, 'the queued delivery; follow it in GET …/deliveries'),
    409: jsonError('CONFLICT: the endpoint is disabled'), ...FORBIDDEN, ...NOT_FOUND, ...AUTH_ERRORS,
  },
});

/**
 * `/v1/webhook-endpoints` (docs/api/webhooks.md): create (secret once), list,
 * read, patch, delete, rotate-secret (24 h overlap), test (ping). An endpoint is its creator's or a
 * team's (docs/api/teams.md): every access is decided by teams/authorize.ts (a viewer reads, a
 * member changes; another account's or team's id is 404). URLs are checked against the outbound address policy on
 * create and update (422), and again at every connection.
 */
export function webhookEndpointsRouter(deps: AppDeps, policy: OutboundPolicy = createOutboundPolicy(deps.config)) {
  const r = createRouter();

  async function owned(c: Context<AppEnv>, id: string, access: Access): Promise<EndpointRow> {
    const row = isId('webhook_endpoint', id) ? await getEndpointById(deps.sql, id) : null;
    await authorize(c, deps, row, access, 'NOT_FOUND', 'webhook endpoint');
    return row!;
  }

  async function checkUrl(url: string): Promise<void> {
    const refusal = await refuseOutboundUrl(url, policy);
    if (refusal) throw new ApiError('WEBHOOK_URL_NOT_ALLOWED', `url: ${refusal.reason}`, refusalDetails('url', refusal));
  }

  r.openapi(create, async (c) => {
    const body = c.req.valid('json');
    const owner = await ownerForNew(c, deps, body.team_id);
    await checkUrl(body.url);
    const secret = newWebhookSecret();
    const row = await insertEndpoint(deps.sql, {
      id: newId('webhook_endpoint'), ...owner, url: body.url, description: body.description ?? null, events: body.events, secret,
    }, WEBHOOK_LIMITS.endpoints_per_account_max);
    if (!row) throw new ApiError('WEBHOOK_ENDPOINT_LIMIT_EXCEEDED', `an account (or a team) may have at most ${WEBHOOK_LIMITS.endpoints_per_account_max} webhook endpoints`);
    return ok(c, { endpoint: toEndpoint(row), secret }, 201);
  });

  r.openapi(list, async (c) => {
    const { page, page_size, team_id } = c.req.valid('query');
    const { rows, total } = await listEndpoints(deps.sql, await ownerScope(c, deps, 'read', team_id), page, page_size);
    return ok(c, { items: rows.map((row) => toEndpoint(row)), total, page, page_size, has_more: page * page_size < total }, 200);
  });

  r.openapi(readOne, async (c) => ok(c, toEndpoint(await owned(c, c.req.valid('param').id, 'read')), 200));

  r.openapi(patch, async (c) => {
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    const cur = await owned(c, id, 'write');
    // A move (team_id: docs/api/teams.md "Moving a resource"): it then receives its new owner's events.
    const { owner, moved } = await ownerAfterMove(c, deps, cur, body.team_id, 'webhook endpoint');
    if (moved && await countEndpoints(deps.sql, owner) >= WEBHOOK_LIMITS.endpoints_per_account_max) {
      throw new ApiError('WEBHOOK_ENDPOINT_LIMIT_EXCEEDED', `the owner it would move to already has ${WEBHOOK_LIMITS.endpoints_per_account_max} webhook endpoints`);
    }
    if (body.url !== undefined) await checkUrl(body.url);
    const row = await updateEndpoint(deps.sql, id, { ...body, team_id: moved ? owner.team_id : undefined });
    if (!row) throw new ApiError('NOT_FOUND', `no webhook endpoint ${id}`);
    return ok(c, toEndpoint(row), 200);
  });

  r.openapi(remove, async (c) => {
    const { id } = c.req.valid('param');
    await owned(c, id, 'write');
    if (!(await deleteEndpoint(deps.sql, id))) throw new ApiError('NOT_FOUND', `no webhook endpoint ${id}`);
    return ok(c, null, 200);
  });

  r.openapi(rotate, async (c) => {
    const { id } = c.req.valid('param');
    await owned(c, id, 'write');
    const secret = newWebhookSecret();
    const row = await rotateSecret(deps.sql, id, secret, WEBHOOK_LIMITS.secret_overlap_s);
    if (!row) throw new ApiError('NOT_FOUND', `no webhook endpoint ${id}`);
    return ok(c, { endpoint: toEndpoint(row), secret, previous_secret_expires_at: row.previous_secret_expires_at!.toISOString() }, 200);
  });

  r.openapi(test, async (c) => {
    const { id } = c.req.valid('param');
    const ep = await owned(c, id, 'write');
    if (!ep.enabled) throw new ApiError('CONFLICT', 'the endpoint is disabled: enable it with PATCH {"enabled": true} first');
    const event_id = newId('event');
    await queueEvent(deps.sql, deps.config, ep.user_id, {
      id: event_id, type: 'webhook.ping', timestamp: new Date().toISOString(),
      data: { endpoint_id: id, message: 'Test event from Vantage: your endpoint is reachable and can verify our signature.' },
    }, [id]);
    const delivery = await getDeliveryByMessage(deps.sql, WEBHOOK_CHANNEL, id, event_id);
    return ok(c, toDelivery(delivery!, []), 202);
  });

  return r;
}
