/** An Error with a Node-style code for a request the probe refuses to send (classified `rejected`). */
export class InvalidRequestError extends Error {
  constructor(message: string, readonly code: 'ERR_INVALID_HTTP_TOKEN' | 'ERR_INVALID_CHAR' | 'ERR_INVALID_ARG_VALUE') {
    super(message);
    this.name = 'InvalidRequestError';
  }
}

/** RFC 9110 section 5.6.2 token (method and field names). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Field values: no CR, LF or NUL (RFC 9110 section 5.5), so no header can inject another. */
const BAD_VALUE = /[\r\n\0]/;
/** Framing fields the probe writes itself: a check's own value is left out (undici did the same). */
const OURS = new Set(['content-length', 'connection']);
/** Fields asking for a framing or exchange the probe does not do (undici refused them too). */
const REFUSED = new Set(['transfer-encoding', 'keep-alive', 'upgrade', 'expect']);

/**
 * The bytes of one HTTP/1.1 request (RFC 9112 section 3): `method target HTTP/1.1`, Host (the
 * URL's host and port as written, unless the check sets its own), the check's header fields,
 * `connection: close` (one exchange per connection), and a Content-Length for a body (the check's
 * own content-length and connection fields are left out: the probe writes those).
 * @throws InvalidRequestError for a method or field name that is not a token, a value with CR, LF or
 * NUL, or transfer-encoding, keep-alive, upgrade or expect (exchanges the probe does not do)
 */
export function requestBytes(url: URL, method: string, headers: Record<string, string>, body: string | undefined): Buffer {
  if (!TOKEN.test(method)) throw new InvalidRequestError(`invalid method: ${method.slice(0, 50)}`, 'ERR_INVALID_HTTP_TOKEN');
  const lines = [`${method} ${url.pathname}${url.search} HTTP/1.1`];
  const hasHost = Object.keys(headers).some((name) => name.toLowerCase() === 'host');
  if (!hasHost) lines.push(`host: ${url.host}`);
  for (const [name, value] of Object.entries(headers)) {
    if (!TOKEN.test(name)) throw new InvalidRequestError(`invalid header name: ${name.slice(0, 50)}`, 'ERR_INVALID_HTTP_TOKEN');
    if (BAD_VALUE.test(value)) throw new InvalidRequestError(`invalid character in the value of header ${name}`, 'ERR_INVALID_CHAR');
    const key = name.toLowerCase();
    if (REFUSED.has(key)) throw new InvalidRequestError(`header ${name} is not supported by the probe`, 'ERR_INVALID_ARG_VALUE');
    if (OURS.has(key)) continue;
    lines.push(`${name}: ${value}`);
  }
  lines.push('connection: close');
  const payload = body === undefined ? null : Buffer.from(body, 'utf8');
  if (payload) lines.push(`content-length: ${payload.length}`);
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  return payload ? Buffer.concat([head, payload]) : head;
}
