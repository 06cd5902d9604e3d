import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import {
  hostNameFault, isId, statusPageCreateSchema, statusPageDomainCheckSchema, statusPagePatchSchema, statusPageSchema,
  statusPageSubscriberListSchema, statusPageSubscriberQuerySchema,
  type StatusPage, type StatusPageComponentInput, type StatusPageSubscriber,
} from '@vantage/shared-protocol';
import { hashPassword } from '../accounts/passwords.js';
import { publicBaseUrl } from '../config/public-url.js';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';
import { authorize, ownerForNew, ownerScope, type Owner } from '../teams/authorize.js';
import { checkCustomDomain } from './domain-check.js';
import { pageCacheOf } from './page-cache.js';
import { assertQuota, withinQuota } from '../billing/quotas.js';
import {
  deletePage, getPage, insertPage, listComponents, listPages, ownedTargets, updatePage,
  type ComponentRow, type PageFields, type StatusPageRow, type Taken,
} from './status-pages.db.js';
import { deletePageSubscriber, listPageSubscribers, type SubscriberRow } from './subscribers.db.js';

const read = [requireAuth({ scope: 'read' })];
const write = [requireAuth({ scope: 'write' })];
const TAGS = ['status pages'];
const idParam = z.object({ id: z.string().max(64).openapi({ param: { name: 'id', in: 'path' }, example: 'sp_01jd3k6w9z4q8r2t7v5x1y3b6c' }) });
const NOT_FOUND = { 404: jsonError('STATUS_PAGE_NOT_FOUND (no such page of yours), TEAM_NOT_FOUND') };
const BAD = { 400: jsonError('VALIDATION_FAILED (a field, or a component naming no monitor or group of the page\'s owner); STATUS_PAGE_DOMAIN_INVALID') };
const TAKEN = { 409: jsonError('STATUS_PAGE_SLUG_TAKEN, STATUS_PAGE_DOMAIN_TAKEN') };
const FORBIDDEN = { 403: jsonError('FORBIDDEN: a key without status:write, or a team role that cannot change the page (viewer)') };

const list = createRoute({
  method: 'get', path: '/', tags: TAGS, security: BEARER, middleware: read, summary: 'Your status pages and your teams\', oldest first (`team_id` filters)',
  request: { query: z.object({ team_id: z.string().max(64).optional() }) }, responses: { 200: jsonOk(z.object({ items: z.array(statusPageSchema) }), 'the pages'), ...AUTH_ERRORS },
});
const create = createRoute({
  method: 'post', path: '/', tags: TAGS, security: BEARER, middleware: write, summary: 'Create a status page with its components',
  request: { body: jsonBody(statusPageCreateSchema) },
  responses: { 201: jsonOk(statusPageSchema, 'the page'), ...BAD, ...FORBIDDEN, 404: jsonError('TEAM_NOT_FOUND'), ...TAKEN, ...AUTH_ERRORS },
});
const readOne = createRoute({
  method: 'get', path: '/{id}', tags: TAGS, security: BEARER, middleware: read, summary: 'One status page',
  request: { params: idParam }, responses: { 200: jsonOk(statusPageSchema, 'the page'), ...NOT_FOUND, ...AUTH_ERRORS },
});
const patch = createRoute({
  method: 'patch', path: '/{id}', tags: TAGS, security: BEARER, middleware: write, summary: 'Change a status page; `components`, when given, replaces all',
  request: { params: idParam, body: jsonBody(statusPagePatchSchema) },
  responses: { 200: jsonOk(statusPageSchema, 'the page'), ...BAD, ...FORBIDDEN, ...NOT_FOUND, ...TAKEN, ...AUTH_ERRORS },
});
const remove = createRoute({
  method: 'delete', path: '/{id}', tags: TAGS, security: BEARER, middleware: write, summary: 'Delete a status page (its address answers 404 at once)',
  request: { params: idParam }, responses: { 200: jsonOk(z.null(), 'deleted'), ...FORBIDDEN, ...NOT_FOUND, ...AUTH_ERRORS },
});
const domainCheck = createRoute({
  method: 'post', path: '/{id}/domain-check', tags: TAGS, security: BEARER, middleware: read,
  summary: 'Check in DNS that the custom domain is a CNAME of this deployment\'s host name',
  request: { params: idParam },
  responses: { 200: jsonOk(statusPageDomainCheckSchema, 'the check\'s outcome'), ...NOT_FOUND, 400: jsonError('VALIDATION_FAILED: the page has no custom domain'), ...AUTH_ERRORS },
});

const subscriberParams = idParam.extend({
  subscriber_id: z.string().max(64).openapi({ param: { name: 'subscriber_id', in: 'path' }, example: 'sps_01jd3k6w9z4q8r2t7v5x1y3b6c' }),
});
const subscribers = createRoute({
  method: 'get', path: '/{id}/subscribers', tags: TAGS, security: BEARER, middleware: read,
  summary: 'The page\'s subscribers, newest first (`state` filters; e-mail addresses and webhook URLs, never a secret)',
  request: { params: idParam, query: statusPageSubscriberQuerySchema },
  responses: { 200: jsonOk(statusPageSubscriberListSchema, '`{items[], total, page, page_size, has_more}`'), 400: jsonError('VALIDATION_FAILED'), ...NOT_FOUND, ...AUTH_ERRORS },
});
const removeSubscriber = createRoute({
  method: 'delete', path: '/{id}/subscribers/{subscriber_id}', tags: TAGS, security: BEARER, middleware: write,
  summary: 'Remove a subscriber: nothing more is sent to it (the address may subscribe again, with a new opt-in)',
  request: { params: subscriberParams },
  responses: { 200: jsonOk(z.null(), 'removed'), ...FORBIDDEN, 404: jsonError('STATUS_PAGE_NOT_FOUND, NOT_FOUND (no such subscriber of this page)'), ...AUTH_ERRORS },
});

/** A subscriber row as its page's owner sees it (docs/api/status-pages.md "Subscribers"): never the secret. */
function toSubscriber(row: SubscriberRow): StatusPageSubscriber {
  return {
    id: row.id, kind: row.kind, address: row.address, state: row.state,
    created_at: row.created_at.toISOString(), confirmed_at: row.confirmed_at?.toISOString() ?? null,
  };
}

/** A page row and its components as the API returns them (docs/api/status-pages.md). */
export function toStatusPage(row: StatusPageRow, components: Array<ComponentRow & { display_name: string }>, base_url: string): StatusPage {
  return {
    id: row.id, team_id: row.team_id, slug: row.slug, title: row.title, description: row.description, custom_domain: row.custom_domain,
    components: components.map((c) => ({ id: c.id, monitor_id: c.monitor_id, group_id: c.group_id, display_name: c.display_name, section: c.section, position: c.position })),
    theme: row.theme, logo_url: row.logo_url, is_public: row.is_public, password_protected: row.password_hash !== null,
    history_days: row.history_days, page_url: `${base_url}/status/${row.slug}`,
    created_by: row.user_id, created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString(),
  };
}

/**
 * `/v1/status-pages` (docs/api/status-pages.md): CRUD of status pages, the custom domain's DNS
 * check, and the page's subscribers (list, remove). Access through teams/authorize.ts (another owner's page is 404 STATUS_PAGE_NOT_FOUND);
 * keys need `status:read` / `status:write`. A change drops the page from the public page cache.
 */
export function statusPagesRouter(deps: AppDeps) {
  const r = createRouter();
  const base = () => publicBaseUrl(deps.config);
  const cache = pageCacheOf(deps);

  async function pageFor(c: Context<AppEnv>, id: string, access: 'read' | 'write'): Promise<StatusPageRow> {
    const row = isId('status_page', id) ? await getPage(deps.sql, id) : null;
    await authorize(c, deps, row, access, 'STATUS_PAGE_NOT_FOUND', 'status page');
    return row!;
  }

  /** The custom domain lower-cased, or a 400 STATUS_PAGE_DOMAIN_INVALID. */
  function domainOf(value: string | null): string | null {
    if (value === null || value === '') return null;
    const host = value.trim().toLowerCase().replace(/\.$/, '');
    const fault = hostNameFault(host);
    if (fault) throw new ApiError('STATUS_PAGE_DOMAIN_INVALID', `custom_domain ${fault}`, { fields: [{ path: 'custom_domain', message: fault }] });
    return host;
  }

  /** Components must show the page owner's own monitors and groups. @throws VALIDATION_FAILED naming the fields */
  async function checkComponents(owner: Owner, components: StatusPageComponentInput[]): Promise<void> {
    const owned = await ownedTargets(deps.sql, owner, components.flatMap((c) => c.monitor_id ?? []), components.flatMap((c) => c.group_id ?? []));
    const seen = new Set<string>();
    const fields = components.flatMap((c, i) => {
      const field = c.monitor_id !== undefined ? 'monitor_id' : 'group_id';
      const id = (c.monitor_id ?? c.group_id)!;
      if (!(field === 'monitor_id' ? owned.monitors : owned.groups).has(id)) return [{ path: `components[${i}].${field}`, message: `no such ${field === 'monitor_id' ? 'monitor' : 'monitor group'} of the page's owner` }];
      if (seen.has(id)) return [{ path: `components[${i}].${field}`, message: 'shown by an earlier component already' }];
      seen.add(id);
      return [];
    });
    if (fields.length > 0) throw new ApiError('VALIDATION_FAILED', `${fields[0]!.path}: ${fields[0]!.message}`, { fields });
  }

  const takenError = (t: Taken, f: PageFields) => t === 'slug_taken'
    ? new ApiError('STATUS_PAGE_SLUG_TAKEN', `the address /status/${f.slug} is taken`, { fields: [{ path: 'slug', message: 'already used by a status page' }] })
    : new ApiError('STATUS_PAGE_DOMAIN_TAKEN', `${f.custom_domain} is another status page's domain`, { fields: [{ path: 'custom_domain', message: 'already used by a status page' }] });

  const view = async (row: StatusPageRow) => toStatusPage(row, await listComponents(deps.sql, [row.id]), base());

  r.openapi(list, async (c) => {
    const scope = await ownerScope(c, deps, 'read', c.req.valid('query').team_id);
    const rows = await listPages(deps.sql, scope);
    const components = await listComponents(deps.sql, rows.map((p) => p.id));
    return ok(c, { items: rows.map((p) => toStatusPage(p, components.filter((x) => x.page_id === p.id), base())) }, 200);
  });

  r.openapi(create, async (c) => {
    const body = c.req.valid('json');
    const custom_domain = domainOf(body.custom_domain);
    const owner = await ownerForNew(c, deps, body.team_id);
    await assertQuota(deps, owner, 'status_pages'); // early, before the work below; counted again under the lock
    await checkComponents(owner, body.components);
    const fields: PageFields = {
      slug: body.slug, title: body.title, description: body.description, custom_domain, theme: body.theme, logo_url: body.logo_url,
      is_public: body.is_public, password_hash: body.is_public || body.password === null ? null : await hashPassword(body.password), history_days: body.history_days,
    };
    const row = await withinQuota(deps, owner, 'status_pages', (tx) => insertPage(tx, owner, fields, body.components));
    if (typeof row === 'string') throw takenError(row, fields);
    // Its slug and domain may be remembered as misses (page-cache.ts): the new page shows at once.
    cache.forget(row);
    return ok(c, await view(row), 201);
  });

  r.openapi(readOne, async (c) => ok(c, await view(await pageFor(c, c.req.valid('param').id, 'read')), 200));

  r.openapi(patch, async (c) => {
    const body = c.req.valid('json');
    const row = await pageFor(c, c.req.valid('param').id, 'write');
    const custom_domain = body.custom_domain === undefined ? row.custom_domain : domainOf(body.custom_domain);
    const is_public = body.is_public ?? row.is_public;
    let password_hash = is_public ? null : row.password_hash;
    if (!is_public && body.password) password_hash = await hashPassword(body.password);
    if (!is_public && password_hash === null) {
      throw new ApiError('VALIDATION_FAILED', 'password: a page that is not public needs a password', { fields: [{ path: 'password', message: 'a page that is not public needs a password' }] });
    }
    if (body.components) await checkComponents(row, body.components);
    const fields: PageFields = {
      slug: body.slug ?? row.slug, title: body.title ?? row.title, description: body.description ?? row.description, custom_domain,
      theme: body.theme ?? row.theme, logo_url: body.logo_url === undefined ? row.logo_url : body.logo_url, is_public, password_hash,
      history_days: body.history_days ?? row.history_days,
    };
    const updated = await updatePage(deps.sql, row.id, fields, body.components);
    if (updated === 'missing') throw new ApiError('STATUS_PAGE_NOT_FOUND', 'status page not found');
    if (typeof updated === 'string') throw takenError(updated, fields);
    cache.forget(row);
    cache.forget(updated);
    return ok(c, await view(updated), 200);
  });

  r.openapi(remove, async (c) => {
    const row = await pageFor(c, c.req.valid('param').id, 'write');
    if (!(await deletePage(deps.sql, row.id))) throw new ApiError('STATUS_PAGE_NOT_FOUND', 'status page not found');
    cache.forget(row);
    return ok(c, null, 200);
  });

  r.openapi(subscribers, async (c) => {
    const row = await pageFor(c, c.req.valid('param').id, 'read');
    const q = c.req.valid('query');
    const { rows, total } = await listPageSubscribers(deps.sql, row.id, q.state, q.page_size, (q.page - 1) * q.page_size);
    return ok(c, { items: rows.map(toSubscriber), total, page: q.page, page_size: q.page_size, has_more: q.page * q.page_size < total }, 200);
  });

  r.openapi(removeSubscriber, async (c) => {
    const { id, subscriber_id } = c.req.valid('param');
    const row = await pageFor(c, id, 'write');
    if (!(await deletePageSubscriber(deps.sql, row.id, subscriber_id))) throw new ApiError('NOT_FOUND', 'no such subscriber of this status page');
    return ok(c, null, 200);
  });

  r.openapi(domainCheck, async (c) => {
    const row = await pageFor(c, c.req.valid('param').id, 'read');
    if (row.custom_domain === null) {
      throw new ApiError('VALIDATION_FAILED', 'the page has no custom domain to check', { fields: [{ path: 'custom_domain', message: 'not set' }] });
    }
    return ok(c, await checkCustomDomain(row.custom_domain, new URL(base()).hostname, deps.config), 200);
  });

  return r;
}
