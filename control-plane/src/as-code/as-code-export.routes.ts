import { createRoute, z } from '@hono/zod-openapi';
import type { Hono } from 'hono';
import { ERROR_CODES, type ErrorCode } from '@vantage/shared-protocol';
import { ApiCallError, createApiClient, exportAccount } from '@vantage/node-agent/as-code';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonError } from '../http/openapi-responses.js';
import { createRouter } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';

const query = z.object({
  format: z.enum(['yaml', 'json']).default('yaml').openapi({ description: 'the file\'s syntax (default yaml)', example: 'yaml' }),
});
const file = z.string().openapi({ description: 'a version 1 monitoring-as-code file' });
const exportRoute = createRoute({
  method: 'get', path: '/export', tags: ['as-code'], security: BEARER, middleware: [requireAuth({ scope: 'read' })],
  summary: 'Your resources as a monitoring-as-code file (what `vantage export` prints), as an attachment',
  request: { query },
  responses: {
    200: { description: 'the file', content: { 'application/yaml': { schema: file }, 'application/json': { schema: file } } },
    400: jsonError('VALIDATION_FAILED: format is neither yaml nor json'),
    ...AUTH_ERRORS,
  },
});

const KNOWN = new Set<string>(ERROR_CODES);

/**
 * `GET /v1/as-code/export` (docs/api/as-code.md "Export"): the caller's personal resources as a
 * file, made by the one exporter (node-agent/src/as-code/export.ts, the CLI's and the console's)
 * through this app in process with the caller's own credential and connection (`c.env`), so it
 * reads exactly what the caller may read, under the caller's rate limit. A failed read inside is
 * answered as that read's error.
 * @param app the app the routes are mounted on (the in-process API the exporter calls)
 */
export function asCodeExportRouter(app: Hono<any>) {
  const r = createRouter();
  r.openapi(exportRoute, async (c) => {
    const { format } = c.req.valid('query');
    const token = /^Bearer (.+)$/i.exec(c.req.header('authorization') ?? '')?.[1] ?? '';
    const api = createApiClient({ base_url: 'http://in-process', token, fetch: (req) => app.fetch(req, c.env) });
    let text: string;
    try {
      text = await exportAccount(api, format);
    } catch (err) {
      if (err instanceof ApiCallError && KNOWN.has(err.code)) {
        throw new ApiError(err.code as ErrorCode, err.message, err.details as Record<string, unknown> | undefined);
      }
      throw err;
    }
    return c.body(text, 200, {
      'content-type': format === 'yaml' ? 'application/yaml; charset=utf-8' : 'application/json; charset=utf-8',
      'content-disposition': `attachment; filename="vantage.${format}"`,
      'cache-control': 'private, no-store',
    }) as never;
  });
  return r;
}
