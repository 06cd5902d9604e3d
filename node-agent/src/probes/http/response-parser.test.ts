/**
 * The probe's HTTP/1.1 response parser on captured-style responses (RFC 9112 framing), each fed
 * whole, one byte at a time and in two halves: the same status, fields and body every time.
 */
import t from 'tap';
import { MAX_HEAD_BYTES, ResponseParser } from './response-parser.js';

interface Parsed { status: number | null; raw: string[]; body: string; done: boolean }

/** Parse `wire` fed in pieces of `split` bytes (0: whole), then `eof` when asked. */
function parse(wire: string, split: number, opts: { head?: boolean; eof?: boolean } = {}): Parsed {
  const got: Parsed = { status: null, raw: [], body: '', done: false };
  const p = new ResponseParser({
    onHead: (status, raw) => { got.status = status; got.raw = raw; },
    onBody: (buf, start, end) => { got.body += buf.toString('latin1', start, end); return true; },
  }, opts.head ?? false);
  const bytes = Buffer.from(wire, 'latin1');
  const step = split || bytes.length;
  for (let i = 0; i < bytes.length; i += step) {
    // A fresh buffer each time, overwritten after the call, as the shared read buffer is.
    const piece = Buffer.from(bytes.subarray(i, i + step));
    p.feed(piece);
    piece.fill(0x7e);
  }
  if (opts.eof) p.end();
  got.done = p.done;
  return got;
}

const CASES: Array<{ name: string; wire: string; head?: boolean; eof?: boolean; status: number; body: string; raw?: string[] }> = [
  { name: 'content-length', wire: 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: 1\r\n\r\nhello', status: 200, body: 'hello', raw: ['Content-Length', '5', 'X-A', '1'] },
  { name: 'chunked with an extension and trailers', wire: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: y\r\n\r\n', status: 200, body: 'hello world' },
  { name: 'chunked, upper-case hex', wire: 'HTTP/1.1 200 OK\r\ntransfer-encoding: gzip, chunked\r\n\r\nA\r\n0123456789\r\n0\r\n\r\n', status: 200, body: '0123456789' },
  { name: 'no length: until the connection closes', wire: 'HTTP/1.0 200 OK\r\n\r\nto the end', eof: true, status: 200, body: 'to the end' },
  { name: 'a final coding other than chunked: until close', wire: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nContent-Length: 2\r\n\r\nabcd', eof: true, status: 200, body: 'abcd' },
  { name: 'interim 100 and 103 skipped', wire: 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok', status: 201, body: 'ok' },
  { name: 'HEAD: no body whatever the length says', wire: 'HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n', head: true, status: 200, body: '' },
  { name: '204 and 304 have no body', wire: 'HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n', status: 204, body: '' },
  { name: 'identical repeated lengths are one', wire: 'HTTP/1.1 200 OK\r\nContent-Length: 3, 3\r\nContent-Length: 3\r\n\r\nabc', status: 200, body: 'abc' },
  { name: 'bare LF line ends', wire: 'HTTP/1.1 404 Not Found\nContent-Length: 3\n\nnop', status: 404, body: 'nop' },
  { name: 'a status line without a reason; values trimmed, UTF-8', wire: 'HTTP/1.1 200\r\nX-Name:  caf\xc3\xa9 \r\nContent-Length: 0\r\n\r\n', status: 200, body: '', raw: ['X-Name', 'café', 'Content-Length', '0'] },
];

t.test('responses parse the same whatever the read boundaries', async (t) => {
  for (const c of CASES) {
    for (const split of [0, 1, Math.ceil(c.wire.length / 2)]) {
      const got = parse(c.wire, split, { head: c.head, eof: c.eof });
      t.equal(got.status, c.status, `${c.name} (split ${split}): status`);
      t.equal(got.body, c.body, `${c.name} (split ${split}): body`);
      t.equal(got.done, true, `${c.name} (split ${split}): done`);
      if (c.raw) t.same(got.raw, c.raw, `${c.name}: fields`);
    }
  }
});

t.test('bytes past a complete response are not body', async (t) => {
  t.equal(parse('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA', 0).body, 'ok');
});

const BAD: Array<{ name: string; wire: string; code: 'HTTP_PARSE' | 'HTTP_INCOMPLETE'; eof?: boolean }> = [
  { name: 'not HTTP', wire: 'SSH-2.0-OpenSSH_9.2\r\n\r\n', code: 'HTTP_PARSE' },
  { name: 'HTTP/2 preface answer', wire: 'HTTP/2 200\r\n\r\n', code: 'HTTP_PARSE' },
  { name: 'a non-numeric length', wire: 'HTTP/1.1 200 OK\r\nContent-Length: 12abc\r\n\r\n', code: 'HTTP_PARSE' },
  { name: 'conflicting lengths', wire: 'HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n', code: 'HTTP_PARSE' },
  { name: 'obsolete line folding', wire: 'HTTP/1.1 200 OK\r\nX-A: 1\r\n folded\r\n\r\n', code: 'HTTP_PARSE' },
  { name: 'a field name with a space', wire: 'HTTP/1.1 200 OK\r\nBad Name: 1\r\n\r\n', code: 'HTTP_PARSE' },
  { name: 'a bad chunk size', wire: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', code: 'HTTP_PARSE' },
  { name: 'chunk data longer than its size', wire: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n', code: 'HTTP_PARSE' },
  { name: 'a body cut short', wire: 'HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc', code: 'HTTP_INCOMPLETE', eof: true },
  { name: 'a chunked body cut short', wire: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab', code: 'HTTP_INCOMPLETE', eof: true },
  { name: 'closed before any head', wire: '', code: 'HTTP_INCOMPLETE', eof: true },
  { name: 'a head larger than the limit', wire: `HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(MAX_HEAD_BYTES)}\r\n\r\n`, code: 'HTTP_PARSE' },
];

t.test('malformed or cut-short responses are refused with a code', async (t) => {
  for (const c of BAD) {
    for (const split of [0, 7]) {
      t.throws(() => parse(c.wire, split, { eof: c.eof }), { name: 'HttpProtocolError', code: c.code }, `${c.name} (split ${split})`);
    }
  }
});

t.test('onBody returning false stops the parse there', async (t) => {
  let seen = 0;
  const p = new ResponseParser({ onHead: () => {}, onBody: (_b, s, e) => { seen += e - s; return false; } }, false);
  p.feed(Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n3\r\ndef\r\n0\r\n\r\n'));
  t.equal(seen, 3, 'only the first chunk was handed out');
  t.equal(p.done, false);
});
