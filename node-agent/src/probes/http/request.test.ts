/** The request bytes the probe writes (RFC 9112 section 3), and what it refuses to write. */
import t from 'tap';
import { requestBytes } from './request.js';

t.test('request line, Host from the URL, the check fields, connection close, a length for a body', async (t) => {
  const bytes = requestBytes(new URL('http://example.test:8080/a/b?q=1'), 'PUT', { 'X-Probe': 'yes', 'Content-Length': '99', Connection: 'keep-alive' }, 'abc');
  t.equal(bytes.toString('latin1'), 'PUT /a/b?q=1 HTTP/1.1\r\nhost: example.test:8080\r\nX-Probe: yes\r\nconnection: close\r\ncontent-length: 3\r\n\r\nabc');
  const own = requestBytes(new URL('http://127.0.0.1/'), 'GET', { Host: 'virtual.test' }, undefined).toString('latin1');
  t.equal(own, 'GET / HTTP/1.1\r\nHost: virtual.test\r\nconnection: close\r\n\r\n', "the check's own Host replaces the URL's");
  t.match(requestBytes(new URL('http://x.test/'), 'POST', {}, 'é').toString('latin1'), /content-length: 2\r\n\r\n/, 'the length counts UTF-8 bytes');
});

t.test('what the probe refuses to send', async (t) => {
  const url = new URL('http://x.test/');
  const cases: Array<[string, Record<string, string>, string]> = [
    ['GE T', {}, 'ERR_INVALID_HTTP_TOKEN'],
    ['GET', { 'bad name': 'v' }, 'ERR_INVALID_HTTP_TOKEN'],
    ['GET', { 'x-a': 'a\r\nInjected: 1' }, 'ERR_INVALID_CHAR'],
    ['GET', { 'x-a': 'nul\0' }, 'ERR_INVALID_CHAR'],
    ['GET', { 'Transfer-Encoding': 'chunked' }, 'ERR_INVALID_ARG_VALUE'],
    ['GET', { Upgrade: 'websocket' }, 'ERR_INVALID_ARG_VALUE'],
    ['GET', { Expect: '100-continue' }, 'ERR_INVALID_ARG_VALUE'],
  ];
  for (const [method, headers, code] of cases) {
    t.throws(() => requestBytes(url, method, headers, undefined), { name: 'InvalidRequestError', code }, `${method} ${JSON.stringify(headers)}`);
  }
});
