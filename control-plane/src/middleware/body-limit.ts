import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { LIMITS } from '@vantage/shared-protocol';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';

/**
 * 413 PAYLOAD_TOO_LARGE for bodies over 32 KB (docs/api/conventions.md) before they are read whole:
 * a Content-Length over the limit is refused without reading; a chunked body is counted as it
 * streams in and refused when it passes the limit.
 * @param max_bytes limit in bytes (default LIMITS.request_body_max_bytes)
 */
export function limitBody(max_bytes: number = LIMITS.request_body_max_bytes): MiddlewareHandler<AppEnv> {
  if (!Number.isInteger(max_bytes) || max_bytes <= 0) throw new TypeError('limitBody: max_bytes must be a positive integer');
  const limit = bodyLimit({
    maxSize: max_bytes,
    onError: () => {
      throw new ApiError('PAYLOAD_TOO_LARGE', `request body exceeds ${max_bytes} bytes`);
    },
  });
  return async function limitBodyMiddleware(c, next) {
    const length = c.req.header('content-length');
    if (length !== undefined && !/^\d{1,15}$/.test(length.trim())) throw new ApiError('REQUEST_BODY_INVALID', 'bad Content-Length');
    return limit(c, next);
  };
}
