/**
 * The probe's own HTTP/1.1 exchange against raw servers on loopback that answer in the framings
 * an HTTP library server would smooth over: a body delimited by the connection's close, a chunked
 * body larger than the cap (the kept body is exactly the cap), a body cut short, a response that
 * is not HTTP, interim 1xx answers, and a HEAD answered with a length but no body.
 */
import net from 'node:net';
import t, { type Test } from 'tap';
import { httpParamsSchema, type HttpParams } from '@vantage/shared-protocol';
import { measureHttp } from './measure.js';

const ALLOW = { allow_private: true, allow_cidrs: [] };

/** A server that reads one request head and answers with `answer(socket)`; resolves its origin. */
async function rawServer(t: Test, answer: (socket: net.Socket, head: string) => void): Promise<string> {
  const server = net.createServer((socket) => {
    let head = '';
    socket.on('error', () => {});
    socket.on('data', (c: Buffer) => {
      if (head.includes('\r\n\r\n')) return;
      head += c.toString('latin1');
      if (head.includes('\r\n\r\n')) answer(socket, head);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

const params = (p: Partial<HttpParams> = {}) => httpParamsSchema.parse({ timeout_ms: 10_000, ...p });

t.test('a body delimited by the close of the connection', async (t) => {
  const origin = await rawServer(t, (s) => { s.write('HTTP/1.0 200 OK\r\nX-A: 1\r\n\r\n'); s.end('until the end'); });
  const m = await measureHttp(`${origin}/`, params(), ALLOW, new AbortController().signal, { keep_body: true });
  t.equal(m.failure, null);
  t.equal(m.last!.status_code, 200);
  t.equal(m.last!.body!.toString(), 'until the end');
  t.equal(m.last!.response_size, 13);
  t.equal(m.last!.headers['x-a'], '1');
});

t.test('a chunked body past the cap: the kept body is exactly the cap, in order', async (t) => {
  const piece = Buffer.alloc(100_000);
  for (let i = 0; i < piece.length; i++) piece[i] = i % 251;
  const origin = await rawServer(t, (s) => {
    s.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n');
    for (let i = 0; i < 30; i++) s.write(Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]));
    s.end('0\r\n\r\n');
  });
  const cap = 250_000;
  const m = await measureHttp(`${origin}/`, params(), ALLOW, new AbortController().signal, { keep_body: true, body_cap_bytes: cap });
  t.equal(m.failure, null);
  t.equal(m.last!.body_truncated, true);
  t.equal(m.last!.body!.length, cap);
  const expected = Buffer.concat([piece, piece, piece]).subarray(0, cap);
  t.ok(m.last!.body!.equals(expected), 'the bytes kept are the first `cap` body bytes, framing removed');
  t.ok(m.last!.response_size! > cap, 'response_size counts what was read past the cap');
});

t.test('a whole chunked body is counted without its framing', async (t) => {
  const origin = await rawServer(t, (s) => s.end('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n'));
  const m = await measureHttp(`${origin}/`, params(), ALLOW, new AbortController().signal);
  t.equal(m.failure, null);
  t.equal(m.last!.response_size, 7);
  t.equal(m.last!.body, null, 'the probe keeps no body');
  t.ok(m.phases!.download_ms >= 0 && m.phases!.ttfb_ms >= 0, 'phases measured');
});

t.test('a body cut short or an answer that is not HTTP fails with class target', async (t) => {
  const cut = await rawServer(t, (s) => s.end('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly this'));
  const m = await measureHttp(`${cut}/`, params(), ALLOW, new AbortController().signal);
  t.equal(m.failure?.error_class, 'target');
  t.match(m.failure?.error, /closed before the response was complete/);
  t.equal(m.last!.status_code, 200, 'the status that did arrive is kept');
  t.equal(m.last!.response_size, 9);
  const ssh = await rawServer(t, (s) => s.end('SSH-2.0-OpenSSH_9.2\r\n\r\n'));
  const n = await measureHttp(`${ssh}/`, params(), ALLOW, new AbortController().signal);
  t.equal(n.failure?.error_class, 'target');
  t.match(n.failure?.error, /invalid status line/);
  t.equal(n.last!.status_code, null);
});

t.test('interim answers are skipped; HEAD reads no body whatever the length says', async (t) => {
  const seen: string[] = [];
  const origin = await rawServer(t, (s, head) => {
    seen.push(head);
    if (head.startsWith('HEAD')) s.write('HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n'); // and keeps the connection open
    else s.end('HTTP/1.1 103 Early Hints\r\nLink: </s.css>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
  });
  const get = await measureHttp(`${origin}/x?y=1`, params(), ALLOW, new AbortController().signal);
  t.equal(get.failure, null);
  t.equal(get.last!.status_code, 200);
  t.equal(get.last!.response_size, 2);
  const head = await measureHttp(`${origin}/`, params({ method: 'HEAD' }), ALLOW, new AbortController().signal);
  t.equal(head.failure, null, 'complete at the end of the head, not at the close');
  t.equal(head.last!.response_size, 0);
  t.match(seen[0], /^GET \/x\?y=1 HTTP\/1\.1\r\nhost: 127\.0\.0\.1:\d+\r\n[^]*connection: close\r\n\r\n$/);
});

t.test('concurrent exchanges share the read buffer and each keeps its own body intact', async (t) => {
  // Each answer is 300 KB of one byte value, so a read landing in another exchange's body would show.
  const origin = await rawServer(t, (s, head) => {
    const id = Number(/^GET \/(\d+) /.exec(head)![1]);
    s.write(`HTTP/1.1 200 OK\r\nContent-Length: ${300_000}\r\n\r\n`);
    for (let i = 0; i < 3; i++) s.write(Buffer.alloc(100_000, id));
    s.end();
  });
  const ids = Array.from({ length: 24 }, (_, i) => i + 1);
  const all = await Promise.all(ids.map((id) => measureHttp(`${origin}/${id}`, params(), ALLOW, new AbortController().signal, { keep_body: true })));
  for (const [i, m] of all.entries()) {
    t.equal(m.failure, null, `exchange ${ids[i]}`);
    t.ok(m.last!.body!.length === 300_000 && m.last!.body!.every((b) => b === ids[i]), `exchange ${ids[i]}: its own 300 KB`);
  }
});
