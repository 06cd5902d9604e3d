import { OpenAPIHono } from '@hono/zod-openapi';
import { fieldIssues } from '@vantage/shared-protocol';
import type { ZodError } from 'zod';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';

/**
 * A VALIDATION_FAILED error (400, docs/api/conventions.md) whose `details.fields` lists every field-level
 * problem as `{ path, message }` with paths like `params.count` or `node_ids[0]`.
 */
export function validationError(error: ZodError, where?: 'body' | 'query' | 'param' | 'header'): ApiError {
  const fields = fieldIssues(error);
  const first = fields[0];
  const message = first ? `${first.path || where || 'request'}: ${first.message}` : 'validation failed';
  return new ApiError('VALIDATION_FAILED', message, { fields, ...(where ? { in: where } : {}) });
}

/**
 * A resource router: an OpenAPIHono whose routes are declared with `createRoute` (request and
 * response schemas from shared-protocol), so every route lands in GET /v1/openapi.json and every
 * failed validation becomes the error envelope (docs/api/conventions.md) through the app's one error handler.
 *
 * @example
 * const r = createRouter();
 * r.openapi(createRoute({ method: 'get', path: '/', responses: { 200: … } }), (c) => c.json(ok(c, data)));
 */
export function createRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error as unknown as ZodError, result.target as never);
    },
  });
}
