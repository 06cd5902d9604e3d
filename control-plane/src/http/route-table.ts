import type { Hono } from 'hono';

/** One registered route: its method, a RegExp over the request path, and its parameter names by segment. */
export interface RouteEntry {
  method: string;
  path: string;
  re: RegExp;
  /** `params[i]` is the parameter name of path segment i (`/v1/nodes/:id` → [, , , 'id']), else undefined. */
  params: Array<string | undefined>;
}

const paramName = (seg: string): string | undefined =>
  seg.startsWith(':') ? seg.slice(1).replace(/\{.*$/, '') : /^\{(.+)\}$/.exec(seg)?.[1];

/** Compile a hono route path (`/v1/x/:id`, `{id}`, `*`) to a RegExp. */
function pathPattern(path: string): RegExp {
  const src = path.split('/').map((seg) => {
    if (seg === '*') return '.*';
    if (paramName(seg) !== undefined) return '[^/]+';
    return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }).join('/');
  return new RegExp(`^${src}/?$`);
}

/**
 * The app's concrete routes (middleware `ALL` and wildcard paths left out), compiled on first use
 * (routers are mounted after the app-level middleware is registered). Used by the 404/405 handler
 * and to name the path parameter a bad segment belongs to.
 */
export function routeTable(app: Hono<any>): () => RouteEntry[] {
  let table: RouteEntry[] | undefined;
  return () => (table ??= app.routes
    .filter((r) => r.method !== 'ALL' && !r.path.endsWith('*'))
    .map((r) => ({ method: r.method, path: r.path, re: pathPattern(r.path), params: r.path.split('/').map(paramName) })));
}

/**
 * The name of the path parameter at `segment` (index in `path.split('/')`) of the route `path`
 * matches (the request's method first), or null when no route has a parameter there.
 */
export function paramAt(table: RouteEntry[], method: string, path: string, segment: number): string | null {
  const matching = table.filter((r) => r.re.test(path));
  const route = matching.find((r) => r.method === method) ?? matching[0];
  return route?.params[segment] ?? null;
}
