import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { AppEnv } from '../env.js';

/**
 * Answer with the success envelope (docs/api/conventions.md): `{ data, request_id }`.
 * `data` may be null (logout, delete). The request id is the one set by the request-id
 * middleware (also sent as the X-Request-Id header).
 *
 * @example return ok(c, { id: 'm_…', status: 'paused' });
 * @param status HTTP status, 200 unless given (201 for creations)
 */
export function ok<T, S extends ContentfulStatusCode = 200>(c: Context<AppEnv>, data: T, status?: S) {
  return c.json({ data, request_id: c.get('request_id') }, (status ?? 200) as S);
}
