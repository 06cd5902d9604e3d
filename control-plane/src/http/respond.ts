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

/**
 * The success envelope of a list page whose `items` are JSON text already (an array written by
 * Postgres, e.g. nodes.db.ts listNodesJson), spliced in without parsing and serialising it again:
 * `{ data: { items, total, page, page_size, has_more }, request_id }`, status 200.
 */
export function okPage(c: Context<AppEnv>, items_json: string, page: { total: number; page: number; page_size: number; has_more: boolean }) {
  const rest = JSON.stringify(page).slice(1);
  return c.body(`{"data":{"items":${items_json},${rest},"request_id":${JSON.stringify(c.get('request_id'))}}`, 200, { 'content-type': 'application/json' });
}
