import type { Context } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { AccountKeyScope } from '@vantage/shared-protocol';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { OPERATION_SCOPES, type OperationScope } from './scope-table.js';

/*
 * Key scopes (docs/api/scopes.md). Every operation of the API needs one scope, named in ONE table
 * (scope-table.ts, keyed by `METHOD /path` exactly as the OpenAPI document writes it); a test walks
 * the generated document and fails for an operation the table lacks. The legacy scopes cover the
 * fine-grained ones: `read` grants every `…:read` scope, `write` every `…:write` scope and `probe`.
 */

/**
 * Whether a credential holding `scopes` may do an operation needing `required` (docs/api/scopes.md):
 * it holds `required`, or the legacy scope that covers it (`read` for `…:read`, `write` for
 * `…:write` and `probe`). `read` and `write` themselves are granted only by themselves.
 * @example grants(['read'], 'monitor:read') // true
 * @example grants(['monitor:write'], 'monitor:read') // false
 */
export function grants(scopes: readonly string[], required: AccountKeyScope): boolean {
  if (scopes.includes(required)) return true;
  if (required === 'read' || required === 'write') return false;
  if (required === 'probe') return scopes.includes('write');
  return scopes.includes(required.endsWith(':read') ? 'read' : 'write');
}

/** The scopes any of which grants `required` (the error's `details.accepted_scopes`). */
export function acceptedScopes(required: AccountKeyScope): AccountKeyScope[] {
  if (required === 'read' || required === 'write') return [required];
  return [required, required === 'probe' || required.endsWith(':write') ? 'write' : 'read'];
}

/**
 * `GET /v1/monitors/{id}` for a Hono route `GET /v1/monitors/:id`: the key of the operation in the
 * scope table and the OpenAPI document (HEAD is answered by the GET route).
 */
export function operationKey(method: string, route_path: string): string {
  const m = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  return `${m} ${route_path.replace(/:([A-Za-z0-9_]+)(\{[^/]*\})?/g, '{$1}')}`;
}

/** The scope the operation `METHOD /path` (OpenAPI form) needs, or undefined when the table lacks it. */
export function scopeOf(operation: string): OperationScope | undefined {
  return Object.hasOwn(OPERATION_SCOPES, operation) ? OPERATION_SCOPES[operation] : undefined;
}

/**
 * The operation a request reached: the first matched route that is an endpoint (not middleware),
 * in OpenAPI form, or null when none matched (a 404 follows). The first one answers: an earlier
 * mount such as `GET /v1/monitors/export` wins over `GET /v1/monitors/{id}`.
 */
export function operationOf(c: Context<AppEnv>): string | null {
  const route = matchedRoutes(c).find((r) => r.method !== 'ALL' && !r.path.endsWith('*'));
  return route ? operationKey(c.req.method, route.path) : null;
}

/**
 * Refuse a key or PAT whose scopes do not cover the operation `c` reached (docs/api/scopes.md).
 * Sessions carry every scope; anonymous callers are left to the route (requireAuth answers 401);
 * operations the table marks `none` ask no scope (public ones, node credentials, logout).
 * @throws ApiError 403 FORBIDDEN with `details: { required_scope, accepted_scopes, scopes }`
 */
export function checkOperationScope(c: Context<AppEnv>): void {
  const principal = c.get('principal');
  if (!principal || principal.kind === 'session') return;
  const operation = operationOf(c);
  const required = operation ? scopeOf(operation) : undefined;
  if (required === undefined || required === 'none' || grants(principal.scopes, required)) return;
  throw scopeError(required, principal.scopes);
}

/** The 403 FORBIDDEN for a credential lacking `required` (docs/api/scopes.md). */
export function scopeError(required: AccountKeyScope, scopes: readonly string[]): ApiError {
  const accepted = acceptedScopes(required);
  return new ApiError('FORBIDDEN', `this credential lacks the '${required}' scope${accepted.length > 1 ? ` (or '${accepted[1]}')` : ''}`, {
    required_scope: required, accepted_scopes: accepted, scopes: [...scopes],
  });
}
