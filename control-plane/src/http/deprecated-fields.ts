import { isDeepStrictEqual } from 'node:util';
import type { MiddlewareHandler } from 'hono';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Config } from '../config/index.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { apiDocUrl } from './api-docs.routes.js';

/** One field an earlier API revision named differently: `old` is read as `current`. */
export interface FieldAlias {
  old: string;
  current: string;
}

/**
 * The aliases of one operation: `method` and `path` exactly as the OpenAPI document writes them
 * (`POST /v1/probe/http`, `PATCH /v1/monitors/{id}`), `in` where the fields are (top-level
 * fields of a JSON body, or query parameters).
 */
export interface AliasRule {
  method: string;
  path: string;
  in: 'json' | 'query';
  aliases: FieldAlias[];
}

/**
 * When the old names were deprecated (docs/api/versioning.md): the `Deprecation` response header
 * carries it as `@<unix seconds>` (RFC 9745 section 2).
 */
export const DEPRECATED_SINCE = new Date('2026-01-01T00:00:00Z');

/**
 * The body fields of earlier revisions (docs/api/versioning.md "Old field names"): a probe's
 * target was `url` (http), `host` (ping, tcp, traceroute) or `domain` (dns); a monitor's
 * `interval_s` was `interval`.
 */
export const BODY_ALIASES: readonly AliasRule[] = [
  { method: 'POST', path: '/v1/probe/http', in: 'json', aliases: [{ old: 'url', current: 'target' }] },
  { method: 'POST', path: '/v1/probe/ping', in: 'json', aliases: [{ old: 'host', current: 'target' }] },
  { method: 'POST', path: '/v1/probe/tcp', in: 'json', aliases: [{ old: 'host', current: 'target' }] },
  { method: 'POST', path: '/v1/probe/traceroute', in: 'json', aliases: [{ old: 'host', current: 'target' }] },
  { method: 'POST', path: '/v1/probe/dns', in: 'json', aliases: [{ old: 'domain', current: 'target' }] },
  { method: 'POST', path: '/v1/monitors', in: 'json', aliases: [{ old: 'interval', current: 'interval_s' }] },
  { method: 'PATCH', path: '/v1/monitors/{id}', in: 'json', aliases: [{ old: 'interval', current: 'interval_s' }] },
];

/** The keys of a zod object schema, through optional/default/pipe wrappers; [] for anything else. */
function objectKeys(schema: unknown): string[] {
  let s = schema as { shape?: Record<string, unknown>; def?: { type?: string; in?: unknown; innerType?: unknown } } | undefined;
  for (let i = 0; i < 8 && s; i++) {
    if (s.shape && typeof s.shape === 'object') return Object.keys(s.shape);
    s = (s.def?.type === 'pipe' ? s.def.in : s.def?.innerType) as typeof s;
  }
  return [];
}

type Definition = { type: string; route?: { method: string; path: string; request?: { query?: unknown } } };

/**
 * The paging alias of every page-based list, from the routes' declared query schemas: a GET whose
 * query has `page` and `page_size` reads `per_page` as `page_size`; one with `page` and `limit`
 * (monitors) reads it as `limit`. Offset-based lists (`limit` and `offset`, no `page`) had no
 * `per_page` and get none.
 */
export function pagingAliases(definitions: readonly unknown[]): AliasRule[] {
  const rules: AliasRule[] = [];
  for (const def of definitions as Definition[]) {
    if (def.type !== 'route' || def.route?.method.toLowerCase() !== 'get') continue;
    const keys = new Set(objectKeys(def.route.request?.query));
    if (!keys.has('page') || keys.has('per_page')) continue;
    const current = keys.has('page_size') ? 'page_size' : keys.has('limit') ? 'limit' : null;
    if (current) rules.push({ method: 'GET', path: def.route.path, in: 'query', aliases: [{ old: 'per_page', current }] });
  }
  return rules.sort((a, b) => a.path.localeCompare(b.path));
}

/**
 * Every alias rule of the app: {@link BODY_ALIASES} plus {@link pagingAliases} of its declared
 * routes. Call after every router is mounted (the document lists them by then).
 */
export function deprecatedFieldRules(app: Pick<OpenAPIHono<AppEnv>, 'openAPIRegistry'>): AliasRule[] {
  return [...BODY_ALIASES, ...pagingAliases(app.openAPIRegistry.definitions)];
}

/** `/v1/monitors/{id}` → a RegExp over request paths (one segment per parameter). */
function pathRegExp(path: string): RegExp {
  const src = path.split('/').map((seg) => (/^\{.+\}$/.test(seg) ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/');
  return new RegExp(`^${src}/?$`);
}

function conflict(where: 'json' | 'query', alias: FieldAlias): ApiError {
  const message = `${alias.old} is the former name of ${alias.current} and differs from it: send ${alias.current} only`;
  return new ApiError('VALIDATION_FAILED', `${alias.old}: ${message}`, { fields: [{ path: alias.old, message }], in: where });
}

/** Rename `old` query parameters to `current`; true when any was present. @throws ApiError on a conflict */
function renameQuery(url: URL, aliases: FieldAlias[]): boolean {
  let used = false;
  for (const alias of aliases) {
    if (!url.searchParams.has(alias.old)) continue;
    used = true;
    const given = url.searchParams.getAll(alias.old);
    url.searchParams.delete(alias.old);
    if (url.searchParams.has(alias.current)) {
      if (!isDeepStrictEqual(url.searchParams.getAll(alias.current), given)) throw conflict('query', alias);
      continue;
    }
    for (const value of given) url.searchParams.append(alias.current, value);
  }
  return used;
}

/** Rename `old` top-level fields of a JSON object to `current`; true when any was present. @throws ApiError on a conflict */
function renameJson(body: Record<string, unknown>, aliases: FieldAlias[]): boolean {
  let used = false;
  for (const alias of aliases) {
    if (!Object.hasOwn(body, alias.old)) continue;
    used = true;
    const value = body[alias.old];
    delete body[alias.old];
    if (Object.hasOwn(body, alias.current)) {
      if (!isDeepStrictEqual(body[alias.current], value)) throw conflict('json', alias);
      continue;
    }
    body[alias.current] = value;
  }
  return used;
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * Accept the field names of earlier API revisions (docs/api/versioning.md), in one place for every
 * route: before the route's validator runs, an old name ({@link BODY_ALIASES}: top-level JSON body
 * fields; {@link pagingAliases}: `per_page`) is renamed to the current one, so the request behaves
 * exactly as with the current name (strict request schemas never see the old one). The response
 * then carries `Deprecation: @<unix seconds of DEPRECATED_SINCE>` (RFC 9745 section 2) and
 * `Link: <public base URL/docs/api/versioning.md>; rel="deprecation"; type="text/markdown"` (RFC
 * 9745 section 3). Both names at once with different values: 400 VALIDATION_FAILED naming the old
 * one (`details.fields[0].path`), nothing done; with equal values the request goes through.
 * A body that is not a JSON object is left to the route's validator.
 *
 * Register after the input checks (body limit, clean-input) and before the routers; the rules are
 * read from the app's declared routes on the first request.
 */
export function deprecatedFields(app: Pick<OpenAPIHono<AppEnv>, 'openAPIRegistry'>, config: Pick<Config, 'public_url' | 'host' | 'port'>): MiddlewareHandler<AppEnv> {
  let rules: Array<AliasRule & { re: RegExp }> | undefined;
  const deprecation = `@${Math.floor(DEPRECATED_SINCE.getTime() / 1000)}`;
  return async function deprecatedFieldsMiddleware(c, next) {
    rules ??= deprecatedFieldRules(app).map((r) => ({ ...r, re: pathRegExp(r.path) }));
    // HEAD is answered by the GET route (RFC 9110 section 9.3.2), so it reads GET's names.
    const method = c.req.method === 'HEAD' ? 'GET' : c.req.method;
    const matching = rules.filter((r) => r.method === method && r.re.test(c.req.path));
    if (matching.length === 0) return next();
    let used = false;
    const mark = () => {
      c.header('Deprecation', deprecation);
      c.header('Link', `<${apiDocUrl(config, 'versioning.md')}>; rel="deprecation"; type="text/markdown"`);
    };
    try {
      for (const rule of matching) {
        if (rule.in === 'query') {
          const url = new URL(c.req.url);
          if (!renameQuery(url, rule.aliases)) continue;
          used = true;
          c.req.raw = new Request(url, { method: c.req.method, headers: c.req.raw.headers, signal: c.req.raw.signal });
        } else if (JSON_TYPE.test(c.req.header('content-type') ?? '')) {
          let body: unknown;
          try {
            body = JSON.parse(await c.req.text());
          } catch {
            continue; // malformed JSON: the route's validator answers REQUEST_BODY_INVALID
          }
          if (body === null || typeof body !== 'object' || Array.isArray(body)) continue;
          if (!renameJson(body as Record<string, unknown>, rule.aliases)) continue;
          used = true;
          // The route's validator reads the body through hono's cache (c.req.json): hand it the renamed text.
          c.req.bodyCache = { text: Promise.resolve(JSON.stringify(body)) } as never;
        }
      }
    } catch (err) {
      mark();
      throw err;
    }
    if (used) mark();
    await next();
    if (used) mark();
  };
}
