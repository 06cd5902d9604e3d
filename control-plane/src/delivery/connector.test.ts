import { createServer, type AddressInfo } from 'node:net';
import t from 'tap';
import { createOutboundConnector, refusalOf } from './connector.js';
import { createOutboundPolicy } from './outbound-policy.js';

/* The connector's TCP side against a real server on loopback; its HTTP side is http-client.test.ts. */

async function tcpServer(t: { teardown(fn: () => unknown): void }) {
  const seen = { connections: 0 };
  const server = createServer((s) => {
    seen.connections++;
    s.on('error', () => {}); // the client may reset
    s.end('hello\r\n');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  return { seen, port: (server.address() as AddressInfo).port };
}

t.test('a name is resolved once, by the policy, and the socket goes to the checked address', async (t) => {
  const srv = await tcpServer(t);
  const asked: string[] = [];
  const resolve = async (host: string) => { asked.push(host); return ['127.0.0.1']; };
  const connector = createOutboundConnector(createOutboundPolicy({ probe_allow_cidrs: [], delivery_allow_cidrs: ['127.0.0.0/8'] }, resolve));
  t.teardown(() => connector.close());
  const socket = await connector.connectTcp('whois.test', srv.port, { timeout_ms: 5000 });
  t.equal(socket.remoteAddress, '127.0.0.1');
  socket.destroy();
  t.same(asked, ['whois.test'], 'one resolution (the system resolver does not know whois.test)');
});

t.test('refused before any connection: a literal, a name with one private address among public ones', async (t) => {
  const srv = await tcpServer(t);
  const resolve = async (host: string) => (host === 'mixed.test' ? ['93.184.216.34', '127.0.0.1'] : []);
  const connector = createOutboundConnector(createOutboundPolicy({ probe_allow_cidrs: [], delivery_allow_cidrs: [] }, resolve));
  t.teardown(() => connector.close());
  for (const host of ['127.0.0.1', '[::ffff:127.0.0.1]', '0x7f.1', 'mixed.test', 'localhost']) {
    const err = await connector.connectTcp(host, srv.port, { timeout_ms: 5000 }).then(() => null, (e: unknown) => e);
    t.ok(refusalOf(err), `${host}: refused by the policy`);
    t.match((err as Error).message, /a loopback address, which the control plane does not connect to \(the operator can open a range with VANTAGE_DELIVERY_ALLOW_CIDRS\)/, host);
  }
  const unknown = await connector.connectTcp('nowhere.test', srv.port, { timeout_ms: 5000 }).then(() => null, (e: unknown) => e);
  t.match(unknown, { code: 'ENOTFOUND' }, 'a name that does not resolve is not a refusal');
  t.notOk(refusalOf(unknown));
  t.equal(srv.seen.connections, 0, 'the server saw nothing');
});
