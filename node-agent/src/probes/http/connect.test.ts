/**
 * The probe's dial: tcp_ms runs from just before the connect, a TLS context is built once per CA
 * set (not once per connection, ~20 ms with an extra CA), plain connections read into the shared
 * READ_BUFFER through `onread`, TLS ones read ahead up to SOCKET_READ_HWM_BYTES (not Node's 16 KiB).
 */
import net from 'node:net';
import tls from 'node:tls';
import t from 'tap';
import pino from 'pino';
import { httpParamsSchema } from '@vantage/shared-protocol';
import { createHttpProbe } from '../http.js';
import { makeTestPki } from '../test-support/certs.js';
import { startHttpServer } from '../test-support/http-server.js';
import { dialPinned, READ_BUFFER, SOCKET_READ_HWM_BYTES, type ConnectMarks } from './connect.js';

const ALLOW = { allow_private: true, allow_cidrs: [] };
const marks = (): ConnectMarks => ({ tcp_start: null, tcp_done: null, tls_done: null, tls: null, certificate: null });

t.test('tcp_ms runs from just before the connect to the connect event', async (t) => {
  const server = net.createServer((c) => c.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const port = (server.address() as net.AddressInfo).port;
  const m = marks();
  const before = performance.now();
  const socket = await dialPinned({ address: '127.0.0.1', port, protocol: 'http:', servername: null, signal: new AbortController().signal, on_read: () => {} }, m);
  socket.on('error', () => {}).destroy();
  t.ok(m.tcp_start !== null && m.tcp_start >= before, 'tcp_start taken inside the dial');
  t.ok(m.tcp_done !== null && m.tcp_done >= m.tcp_start!, 'tcp_done after tcp_start');
});

t.test('an abort during the connect rejects with ABORT_ERR', async (t) => {
  const ac = new AbortController();
  ac.abort();
  // Nothing is dialled: the signal is already aborted when the dial starts.
  await t.rejects(dialPinned({ address: '127.0.0.1', port: 9, protocol: 'http:', servername: null, signal: ac.signal, on_read: () => {} }, marks()), { code: 'ABORT_ERR' });
});

t.test('one TLS context per CA set, not one per connection', async (t) => {
  const pki = await makeTestPki();
  const srv = await startHttpServer({ tls: pki.leaf });
  t.teardown(() => srv.close());
  const probe = createHttpProbe({ ca: pki.ca.cert });
  const ctx = { signal: new AbortController().signal, policy: ALLOW, log: pino({ level: 'silent' }) };
  const original = tls.createSecureContext;
  let built = 0;
  tls.createSecureContext = ((...args: Parameters<typeof original>) => { built++; return original(...args); }) as typeof original;
  t.teardown(() => { tls.createSecureContext = original; });
  for (let i = 0; i < 3; i++) {
    const r = await probe.run(`${srv.origin}/ok`, httpParamsSchema.parse({}), ctx);
    t.equal(r.success, true, r.error ?? 'ok');
  }
  t.ok(built <= 1, `${built} TLS contexts built for 3 connections`);
});

t.test('plain reads land in the shared READ_BUFFER; TLS reads come through a 1 MiB read-ahead', async (t) => {
  const pki = await makeTestPki();
  for (const protocol of ['http:', 'https:'] as const) {
    const srv = await startHttpServer(protocol === 'https:' ? { tls: pki.leaf } : {});
    t.teardown(() => srv.close());
    const chunks: Array<{ shared: boolean; text: string }> = [];
    const socket = await dialPinned({
      address: '127.0.0.1', port: srv.port, protocol, servername: null, ca: pki.ca.cert, signal: new AbortController().signal,
      on_read: (c) => chunks.push({ shared: c.buffer === READ_BUFFER.buffer, text: c.toString('latin1') }),
    }, marks());
    t.equal(socket instanceof tls.TLSSocket, protocol === 'https:', `${protocol} socket type`);
    if (socket instanceof tls.TLSSocket) {
      t.equal(socket.readableHighWaterMark, SOCKET_READ_HWM_BYTES, 'TLS socket read-ahead');
      t.equal((socket as unknown as { _parent?: net.Socket })._parent?.readableHighWaterMark, SOCKET_READ_HWM_BYTES, 'the TCP socket under TLS too');
    }
    const closed = new Promise((resolve) => socket.on('close', resolve));
    socket.on('error', () => {});
    socket.write('GET /ok HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n');
    await closed;
    t.match(chunks.map((c) => c.text).join(''), /^HTTP\/1\.1 200 OK\r\n[^]*\r\n\r\nhello$/, `${protocol}: the whole response reached on_read`);
    t.ok(chunks.every((c) => c.shared === (protocol === 'http:')), `${protocol}: ${protocol === 'http:' ? 'views of READ_BUFFER' : 'buffers of their own'}`);
  }
});
