/**
 * What the connector leaves out of tcp_ms: it dials only when undici asks (so the client's
 * set-up cannot delay the 'connect' event), it builds a TLS context once per CA set (not once
 * per connection, ~20 ms with an extra CA), and tcp_ms runs from just before the connect.
 * The socket handed to undici reads ahead up to SOCKET_READ_HWM_BYTES (not Node's 16 KiB).
 */
import net from 'node:net';
import tls from 'node:tls';
import t from 'tap';
import pino from 'pino';
import { httpParamsSchema } from '@vantage/shared-protocol';
import { createHttpProbe } from '../http.js';
import { makeTestPki } from '../test-support/certs.js';
import { startHttpServer } from '../test-support/http-server.js';
import { pinnedConnector, SOCKET_READ_HWM_BYTES, type ConnectMarks } from './connect.js';

const ALLOW = { allow_private: true, allow_cidrs: [] };
const marks = (): ConnectMarks => ({ tcp_start: null, tcp_done: null, tls_done: null, tls: null, certificate: null, first_byte: null });

t.test('nothing is dialled before undici asks', async (t) => {
  let connections = 0;
  const server = net.createServer((c) => { connections++; c.destroy(); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const port = (server.address() as net.AddressInfo).port;
  const m = marks();
  const { connector, dispose } = pinnedConnector({ address: '127.0.0.1', port, protocol: 'http:', servername: null, signal: new AbortController().signal }, m);
  t.teardown(dispose);
  // A control connection made now is accepted after any early dial (the backlog is FIFO), and
  // the server has handled it once it closes it.
  await new Promise<void>((resolve) => net.connect(port, '127.0.0.1').on('close', () => resolve()).on('error', () => {}));
  const seenBefore = connections;
  const socket = await new Promise<net.Socket>((resolve, reject) => {
    connector({ hostname: '127.0.0.1', host: '127.0.0.1', protocol: 'http:', port: String(port), servername: undefined } as never, (err, s) => (err ? reject(err) : resolve(s as net.Socket)));
  });
  socket.on('error', () => {}).destroy();
  t.equal(seenBefore, 1, 'only the control connection before the connector was called');
  t.ok(m.tcp_start !== null && m.tcp_done !== null && m.tcp_done >= m.tcp_start, 'tcp_start and tcp_done are marked in order');
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

t.test('the socket handed to undici reads ahead up to SOCKET_READ_HWM_BYTES, plain and TLS', async (t) => {
  const pki = await makeTestPki();
  for (const protocol of ['http:', 'https:'] as const) {
    const srv = await startHttpServer(protocol === 'https:' ? { tls: pki.leaf } : {});
    t.teardown(() => srv.close());
    const { connector } = pinnedConnector({ address: '127.0.0.1', port: srv.port, protocol, servername: null, ca: pki.ca.cert, signal: new AbortController().signal }, marks());
    const socket = await new Promise<net.Socket>((resolve, reject) => {
      connector({ hostname: '127.0.0.1', host: '127.0.0.1', protocol, port: String(srv.port), servername: undefined } as never, (err, s) => (err ? reject(err) : resolve(s as net.Socket)));
    });
    t.equal(socket instanceof tls.TLSSocket, protocol === 'https:', `${protocol} socket type`);
    t.equal(socket.readableHighWaterMark, SOCKET_READ_HWM_BYTES, `${protocol} readable high-water mark`);
    if (socket instanceof tls.TLSSocket) t.equal((socket as unknown as { _parent?: net.Socket })._parent?.readableHighWaterMark, SOCKET_READ_HWM_BYTES, 'the TCP socket under TLS too');
    socket.on('error', () => {}).destroy();
  }
});
