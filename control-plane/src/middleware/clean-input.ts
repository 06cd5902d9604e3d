import type { Hono, MiddlewareHandler } from 'hono';
import { LIMITS, findTextFault, jsonDepthFault, textFault } from '@vantage/shared-protocol';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { paramAt, routeTable } from '../http/route-table.js';
import { hasBody } from './body-limit.js';

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
const URL_PARTS = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*([^?#]*)(?:\?([^#]*))?/i;
const utf8 = new TextDecoder('utf-8', { fatal: true });
// Valid UTF-8 decodes to well-formed text and JSON.parse refuses a raw NUL, so a NUL or a lone
// surrogate in parsed JSON can only come from a \u escape: bodies without one skip the walk.
const MAYBE_FAULT = /\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})/;
const MALFORMED = 'malformed percent-encoding (not UTF-8)';

/** Strict percent-decoding (hono falls back to the raw text on failure); null when malformed. */
function decode(raw: string, plus_is_space: boolean): string | null {
  try {
    return decodeURIComponent(plus_is_space ? raw.replace(/\+/g, ' ') : raw);
  } catch {
    return null;
  }
}

/** What is wrong with one percent-encoded URL component, or null. */
function componentFault(raw: string, plus_is_space: boolean): string | null {
  const text = decode(raw, plus_is_space);
  return text === null ? MALFORMED : textFault(text);
}

function fieldError(where: 'param' | 'path' | 'query' | 'json', path: string, message: string): ApiError {
  return new ApiError('VALIDATION_FAILED', `${path}: ${message}`, { fields: [{ path, message }], in: where });
}

/**
 * One check of every client-supplied string before any route, credential lookup or query sees
 * it, so no route can hand Postgres a value it refuses (NUL: SQLSTATE 22021; a lone surrogate has
 * no UTF-8 form and would be stored as U+FFFD): path segments and query parameters must be
 * well-formed percent-encoded UTF-8 without NUL; a JSON body (any `application/json` or `+json`
 * type) must be valid UTF-8 (RFC 8259 section 8.1) and none of its strings or keys may hold NUL
 * or a lone surrogate (shared-protocol `textFault`).
 *
 * A JSON body may nest at most LIMITS.json_depth_max arrays and objects, counted on the text
 * before anything parses it (shared-protocol jsonDepthFault), so no route's recursive validation
 * meets input deep enough to exhaust the stack.
 *
 * Answers 400 VALIDATION_FAILED naming the field (`details.fields[{path, message}]`, `details.in`
 * = `param` with the route's parameter name, `query`, or `json`), or 400 REQUEST_BODY_INVALID for
 * a body that is not UTF-8 or nests too deep (`details.fields` naming where, `details.in` =
 * `json`). Malformed JSON is left to the route's validator (REQUEST_BODY_INVALID).
 * Headers need no check: Node's HTTP parser refuses NUL and control bytes in them (400), and
 * their values are Latin-1, so they cannot hold a surrogate.
 * @param app the app whose routes name the path parameters (read on first request)
 */
export function cleanInput(app: Hono<AppEnv>): MiddlewareHandler<AppEnv> {
  const table = routeTable(app);
  return async function cleanInputMiddleware(c, next) {
    const [, path = '/', query] = URL_PARTS.exec(c.req.url) ?? [];
    const segments = path.split('/');
    for (let i = 0; i < segments.length; i++) {
      const fault = componentFault(segments[i]!, false);
      if (!fault) continue;
      const name = paramAt(table(), c.req.method, path, i);
      throw name ? fieldError('param', name, fault) : fieldError('path', `path segment ${i}`, fault);
    }
    for (const pair of query ? query.split('&') : []) {
      const eq = pair.indexOf('=');
      const raw_name = eq < 0 ? pair : pair.slice(0, eq);
      const name = decode(raw_name, true);
      if (name === null || textFault(name)) throw fieldError('query', 'query', `parameter name ${name === null ? MALFORMED : textFault(name)}`);
      const fault = eq < 0 ? null : componentFault(pair.slice(eq + 1), true);
      if (fault) throw fieldError('query', name, fault);
    }
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD' && hasBody(c) && JSON_TYPE.test(c.req.header('content-type') ?? '')) {
      const bytes = await c.req.arrayBuffer();
      let text: string;
      try {
        text = utf8.decode(bytes);
      } catch {
        throw new ApiError('REQUEST_BODY_INVALID', 'request body is not valid UTF-8');
      }
      // Before anything parses it: recursive validation of deeper input would exhaust the stack.
      const deep = jsonDepthFault(text, LIMITS.json_depth_max);
      if (deep) {
        const path = deep.path || 'body';
        throw new ApiError('REQUEST_BODY_INVALID', `${path}: ${deep.message}`, { fields: [{ path, message: deep.message }], in: 'json' });
      }
      // The route's validator reads the body as text (hono's c.req.json): it gets this one, read
      // and decoded once, instead of decoding the cached bytes again through a web Response.
      // (hono keeps promises in bodyCache, whatever its type says.)
      (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(text);
      if (MAYBE_FAULT.test(text)) {
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        const issue = findTextFault(json);
        if (issue) throw fieldError('json', issue.path || 'body', issue.message);
      }
    }
    await next();
  };
}
