import { createHmac, timingSafeEqual } from 'node:crypto';
import { createRoute, z } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { errorEnvelopeSchema, publicStatusPageSchema } from '@vantage/shared-protocol';
import { verifyPassword } from '../accounts/passwords.js';
import { publicBaseUrl } from '../config/public-url.js';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { jsonError, jsonOk } from '../http/openapi-responses.js';
import { sendPrecompressed } from '../http/precompressed.js';
import { createRouter } from '../http/router.js';
import { pageCacheOf, type CachedPage } from './page-cache.js';
import { notFoundHtml, passwordHtml } from './page-html.js';
import type { StatusPageRow } from './status-pages.db.js';

const TAGS = ['status pages (public)'];
const ATOM = 'application/atom+xml; charset=utf-8';
const PUBLIC = 'Public: no credential. A page that is not public asks for its password first (a cookie then admits the browser).';
const slugParam = z.object({ slug: z.string().max(63).openapi({ param: { name: 'slug', in: 'path' }, example: 'acme' }) });
const htmlOk = (description: string) => ({ description, content: { 'text/html': { schema: z.string() } } });
const NOT_FOUND = { 404: { description: 'STATUS_PAGE_NOT_FOUND', content: { 'application/json': { schema: errorEnvelopeSchema } } } };

const pageRoute = createRoute({
  method: 'get', path: '/status/{slug}', tags: TAGS, description: PUBLIC, summary: 'The status page as HTML (no JavaScript needed)',
  request: { params: slugParam }, responses: { 200: htmlOk('the page, or its password form'), 404: { description: 'STATUS_PAGE_NOT_FOUND: an HTML page saying so when the request accepts text/html (a browser), else the error envelope', content: { 'text/html': { schema: z.string() }, 'application/json': { schema: errorEnvelopeSchema } } } },
});
const unlockRoute = createRoute({
  method: 'post', path: '/status/{slug}', tags: TAGS, description: PUBLIC, summary: 'Send the password of a page that is not public (form field `password`); a right one sets the access cookie',
  request: { params: slugParam }, responses: { 303: { description: 'right: back to the page with the cookie' }, 401: htmlOk('wrong: the form again'), ...NOT_FOUND },
});
const feedRoute = createRoute({
  method: 'get', path: '/status/{slug}/feed.atom', tags: TAGS, description: PUBLIC, summary: 'The page\'s incidents as an Atom feed (RFC 4287)',
  request: { params: slugParam },
  responses: { 200: { description: 'the feed', content: { 'application/atom+xml': { schema: z.string() } } }, 401: jsonError('AUTH_REQUIRED: the page is not public'), ...NOT_FOUND },
});
const jsonRoute = createRoute({
  method: 'get', path: '/v1/public/status-pages/{slug}', tags: TAGS, description: PUBLIC, summary: 'What the status page shows, as JSON',
  request: { params: slugParam }, responses: { 200: jsonOk(publicStatusPageSchema, 'the page'), 401: jsonError('AUTH_REQUIRED: the page is not public'), ...NOT_FOUND },
});

/** The access cookie's name and value for a page that is not public: an HMAC of the page id keyed by its password hash (a new password voids old cookies). */
function accessCookie(page: StatusPageRow): { name: string; value: string } {
  return { name: `vantage_sp_${page.id}`, value: createHmac('sha256', page.password_hash ?? '').update(page.id).digest('base64url') };
}

/** Whether the request may see `page`: it is public, or the request carries its access cookie. */
export function admitted(c: Context<AppEnv>, page: StatusPageRow): boolean {
  if (page.is_public || page.password_hash === null) return true;
  const want = accessCookie(page);
  const got = getCookie(c, want.name);
  return got !== undefined && got.length === want.value.length && timingSafeEqual(Buffer.from(got), Buffer.from(want.value));
}

/**
 * The public status pages (docs/api/status-pages.md "The public page"): `/status/{slug}` (HTML),
 * its Atom feed, and the JSON at `/v1/public/status-pages/{slug}`, all from the page cache. A
 * page that is not public answers its password form (HTML) or 401 (feed, JSON) until the browser
 * holds the access cookie.
 */
export function publicStatusPagesRouter(deps: AppDeps) {
  const r = createRouter();
  const cache = pageCacheOf(deps);
  const secure = () => publicBaseUrl(deps.config).startsWith('https:');

  async function found(slug: string): Promise<CachedPage> {
    const hit = await cache.bySlug(slug);
    if (!hit) throw new ApiError('STATUS_PAGE_NOT_FOUND', `no status page at /status/${slug}`);
    return hit;
  }
  const locked = () => new ApiError('AUTH_REQUIRED', 'this status page is protected by a password: open it in a browser and enter the password');

  r.openapi(pageRoute, async (c) => {
    const path = `/status/${c.req.valid('param').slug}`;
    const hit = await cache.bySlug(c.req.valid('param').slug);
    // A browser gets a page saying so; an API client the error envelope.
    if (!hit && wantsHtml(c)) return c.html(notFoundHtml(path), 404, { 'cache-control': 'no-store' }) as never;
    return servePage(c, hit ?? (await found(c.req.valid('param').slug)), path, deps) as never;
  });
  r.openapi(unlockRoute, async (c) => unlock(c, await found(c.req.valid('param').slug), `/status/${c.req.valid('param').slug}`, secure()) as never);

  r.openapi(feedRoute, async (c) => {
    const hit = await found(c.req.valid('param').slug);
    if (!admitted(c, hit.page)) throw locked();
    return sendPrecompressed(c, hit.atom, ATOM, cacheHeaders(hit, deps)) as never;
  });

  r.openapi(jsonRoute, async (c) => {
    const hit = await found(c.req.valid('param').slug);
    if (!admitted(c, hit.page)) throw locked();
    // The view is rendered to text once per cache entry: a read only wraps it in the envelope.
    const body = `{"data":${hit.json},"request_id":${JSON.stringify(c.get('request_id') ?? '')}}`;
    return c.body(body, 200, { 'content-type': 'application/json; charset=utf-8', ...cacheHeaders(hit, deps) }) as never;
  });

  return r;
}

function cacheHeaders(hit: CachedPage, deps: Pick<AppDeps, 'config'>): Record<string, string> {
  const max_age = deps.config.status_page_cache_ttl_s;
  return { 'cache-control': hit.page.is_public ? `public, max-age=${max_age}` : 'private, no-store', 'x-robots-tag': hit.page.is_public ? 'all' : 'noindex' };
}

function servePage(c: Context<AppEnv>, hit: CachedPage, action: string, deps: Pick<AppDeps, 'config'>) {
  c.header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; img-src https: http:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
  c.header('referrer-policy', 'no-referrer');
  if (!admitted(c, hit.page)) {
    c.header('cache-control', 'no-store');
    return c.html(passwordHtml({ title: hit.page.title, action, failed: false }), 200);
  }
  return sendPrecompressed(c, hit.html, 'text/html; charset=UTF-8', cacheHeaders(hit, deps));
}

async function unlock(c: Context<AppEnv>, hit: CachedPage, action: string, secure: boolean) {
  const form = await c.req.parseBody().catch(() => ({} as Record<string, unknown>));
  const password = typeof form.password === 'string' ? form.password : '';
  if (hit.page.password_hash === null || hit.page.is_public) return c.redirect(action, 303);
  if (!(await verifyPassword(password, hit.page.password_hash))) {
    c.header('cache-control', 'no-store');
    return c.html(passwordHtml({ title: hit.page.title, action, failed: true }), 401);
  }
  const cookie = accessCookie(hit.page);
  setCookie(c, cookie.name, cookie.value, { path: '/', httpOnly: true, sameSite: 'Lax', secure, maxAge: 30 * 86_400 });
  return c.redirect(action, 303);
}

/**
 * Custom domains (docs/api/status-pages.md "Custom domain"): a GET of `/` or `/feed.atom`, or a
 * POST of `/` (the password form), whose Host header is a page's custom domain is answered with
 * that page; any other request goes on. Hosts without a page are remembered by the page cache, so
 * this costs a map look-up.
 */
export function customDomainPages(deps: AppDeps): MiddlewareHandler<AppEnv> {
  const cache = pageCacheOf(deps);
  const secure = () => publicBaseUrl(deps.config).startsWith('https:');
  return async function customDomainPagesMiddleware(c, next) {
    const path = c.req.path;
    const method = c.req.method;
    const wanted = ((method === 'GET' || method === 'HEAD') && (path === '/' || path === '/feed.atom')) || (method === 'POST' && path === '/');
    const host = wanted ? hostOf(c.req.header('host')) : null;
    const hit = host ? await cache.byHost(host) : null;
    if (!hit) return next();
    if (method === 'POST') return unlock(c, hit, '/', secure());
    if (path === '/') return servePage(c, hit, '/', deps);
    if (!admitted(c, hit.page)) throw new ApiError('AUTH_REQUIRED', 'this status page is protected by a password');
    return sendPrecompressed(c, hit.atom, ATOM, cacheHeaders(hit, deps));
  };
}

/** Whether the request is a browser's navigation (its Accept names text/html before JSON). */
function wantsHtml(c: Context<AppEnv>): boolean {
  const accept = c.req.header('accept') ?? '';
  const h = accept.indexOf('text/html');
  const j = accept.indexOf('application/json');
  return h !== -1 && (j === -1 || h < j);
}

/** The host name of a Host header, lower case, without port or trailing dot; null for an IP literal or nothing. */
function hostOf(header: string | undefined): string | null {
  if (!header || header.startsWith('[')) return null;
  const host = header.replace(/:\d+$/, '').replace(/\.$/, '').toLowerCase();
  return host.includes('.') && !/^[0-9.]+$/.test(host) ? host : null;
}
