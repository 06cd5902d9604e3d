import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { LIMITS } from '@vantage/shared-protocol';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';

/**
 * True when the request came through Node's HTTP/1.x server (@hono/node-server passes the
 * IncomingMessage as `c.env.incoming`), where the headers alone tell whether there is a body.
 */
function fromHttp1(c: Context): boolean {
  return (c.env as { incoming?: { httpVersionMajor?: number } } | undefined)?.incoming?.httpVersionMajor === 1;
}

/**
 * Whether a request carries a body. Over HTTP/1.x the headers say (RFC 9112 section 6.3: a
 * request has a body only with Transfer-Encoding or Content-Length, and Node's parser reads
 * exactly that many bytes); asking the request object (`c.req.raw.body`) would build a web
 * Request and a stream around the socket for every request, GETs included: about a tenth of the
 * control plane's CPU per probe at a few hundred requests a second. Other requests (in-process
 * `app.request`) are asked.
 */
export function hasBody(c: Context): boolean {
  if (c.req.header('transfer-encoding') !== undefined) return true;
  const length = c.req.header('content-length');
  if (length !== undefined) return length.trim() !== '0';
  return fromHttp1(c) ? false : c.req.raw.body !== null;
}

/**
 * 413 PAYLOAD_TOO_LARGE for bodies over 32 KB (docs/api/conventions.md) before they are read whole:
 * a Content-Length over the limit is refused without reading; a chunked body is counted as it
 * streams in and refused when it passes the limit. An HTTP/1.x request without Transfer-Encoding
 * is decided from its headers, without touching the body (see {@link hasBody}).
 * @param max_bytes limit in bytes (default LIMITS.request_body_max_bytes)
 */
export function limitBody(max_bytes: number = LIMITS.request_body_max_bytes): MiddlewareHandler<AppEnv> {
  if (!Number.isInteger(max_bytes) || max_bytes <= 0) throw new TypeError('limitBody: max_bytes must be a positive integer');
  const tooLarge = () => new ApiError('PAYLOAD_TOO_LARGE', `request body exceeds ${max_bytes} bytes`);
  const limit = bodyLimit({
    maxSize: max_bytes,
    onError: () => {
      throw tooLarge();
    },
  });
  return async function limitBodyMiddleware(c, next) {
    const length = c.req.header('content-length');
    if (length !== undefined && !/^\d{1,15}$/.test(length.trim())) throw new ApiError('REQUEST_BODY_INVALID', 'bad Content-Length');
    const chunked = c.req.header('transfer-encoding') !== undefined;
    if (!chunked && length !== undefined) {
      if (Number(length) > max_bytes) throw tooLarge();
      return next();
    }
    if (!chunked && fromHttp1(c)) return next(); // no body (see hasBody)
    return limit(c, next);
  };
}
