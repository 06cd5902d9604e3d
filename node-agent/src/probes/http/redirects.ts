/** Redirects followed at most (curl's and browsers' order of magnitude; Go's http client stops at 10 too). */
export const MAX_REDIRECTS = 10;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Headers never carried to another origin (Fetch standard, "HTTP-redirect fetch" step 13). */
const CROSS_ORIGIN_DROPPED = new Set(['authorization', 'cookie', 'proxy-authorization']);

/** The request of one hop. */
export interface HopRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/** Whether `status` is a redirect status whose Location is followed (RFC 9110 15.4). */
export function isRedirect(status: number): boolean {
  return REDIRECT_STATUSES.has(status);
}

/**
 * The request to send after a redirect answer, following the Fetch standard:
 * 303 turns any method but HEAD into a body-less GET, 301/302 turn POST into GET, 307/308 keep
 * method and body; a cross-origin hop drops credentials headers. Returns `null` when `location`
 * is not a usable http(s) URL (the redirect is then reported, not followed).
 */
export function nextHop(prev: HopRequest, status: number, location: string): HopRequest | null {
  let url: URL;
  try {
    url = new URL(location, prev.url);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  url.hash = '';
  let method = prev.method;
  let body = prev.body;
  if ((status === 303 && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST')) {
    method = 'GET';
    body = undefined;
  }
  const headers: Record<string, string> = {};
  const sameOrigin = url.origin === prev.url.origin;
  for (const [name, value] of Object.entries(prev.headers)) {
    const key = name.toLowerCase();
    if (!sameOrigin && CROSS_ORIGIN_DROPPED.has(key)) continue;
    if (body === undefined && (key === 'content-type' || key === 'content-length')) continue;
    headers[name] = value;
  }
  return { url, method, headers, body };
}

/**
 * Parse a probe target into an http(s) URL. A target without a scheme is taken as `http://…`
 * (curl's habit). Returns null for anything else (other schemes, unparsable text).
 */
export function parseTargetUrl(target: string): URL | null {
  const text = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(target) ? target : `http://${target}`;
  try {
    const url = new URL(text);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    if (!url.hostname) return null;
    url.hash = '';
    return url;
  } catch {
    return null;
  }
}
