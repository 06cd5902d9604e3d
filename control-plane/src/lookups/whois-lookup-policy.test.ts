import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from 'node:net';
import t from 'tap';
import { createOutboundConnector } from '../delivery/connector.js';
import { createOutboundPolicy } from '../delivery/outbound-policy.js';
import { parseBootstrap } from './rdap-bootstrap.js';
import { lookupDomain } from './whois-lookup.js';

/*
 * Registry look-ups obey the outbound address policy at every connection: real RDAP and WHOIS
 * servers on loopback addresses (port 0), a policy that refuses loopback unless the allow list
 * (VANTAGE_DELIVERY_ALLOW_CIDRS) opens it, redirects and referrals judged per hop.
 */

type Tap = { teardown(fn: () => unknown): void };
const NOW = () => new Date('2026-11-22T00:00:00Z');
const EXPIRY = '2027-03-01T00:00:00Z';
const REFUSED = /127\.0\.0\.1, a loopback address, which the control plane does not connect to \(the operator can open a range with VANTAGE_DELIVERY_ALLOW_CIDRS\)/;

const whoisRecord = (lines: string[]) => [...lines, ''].join('\r\n');
const REGISTERED = whoisRecord(['   Domain Name: EXAMPLE.TEST', '   Registrar: Loopback Registrar LLC', `   Registry Expiry Date: ${EXPIRY}`]);

/** A WHOIS server on `host` (port 0) answering `text` to every query; counts the connections it accepted. */
async function whoisServer(t: Tap, host: string, text: string) {
  const seen = { connections: 0 };
  const server: TcpServer = createTcpServer((s) => {
    seen.connections++;
    s.once('data', () => s.end(text));
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  t.teardown(() => server.close());
  return { seen, address: `${host}:${(server.address() as AddressInfo).port}` };
}

/** An RDAP server on `host` (port 0) answering `respond`; counts the requests it got. */
async function rdapServer(t: Tap, host: string, respond: (path: string, res: import('node:http').ServerResponse) => void) {
  const seen = { requests: 0 };
  const server: HttpServer = createHttpServer((req, res) => {
    seen.requests++;
    respond(req.url ?? '', res);
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  t.teardown(() => { server.closeAllConnections(); server.close(); });
  return { seen, base: `http://${host}:${(server.address() as AddressInfo).port}/rdap/` };
}

const rdapDomain = (res: import('node:http').ServerResponse) => {
  res.setHeader('content-type', 'application/rdap+json');
  res.end(JSON.stringify({ objectClassName: 'domain', ldhName: 'example.test', events: [{ eventAction: 'expiration', eventDate: EXPIRY }] }));
};

/** Look-up options over a connector whose policy allows `allow` (delivery_allow_cidrs) and nothing private else. */
function options(t: Tap, allow: string[], o: { rdap?: string; whois: string }) {
  const connector = createOutboundConnector(createOutboundPolicy({ probe_allow_cidrs: [], delivery_allow_cidrs: allow }));
  t.teardown(() => connector.close());
  const bootstrap = parseBootstrap(JSON.stringify({ version: '1.0', services: o.rdap ? [[['test'], [o.rdap]]] : [] }));
  return { bootstrap, connector, whois_server: () => o.whois, timeout_ms: 5000 };
}

t.test('WHOIS on loopback: refused with the setting named, no connection; allowed once the allow list has 127.0.0.0/8', async (t) => {
  const whois = await whoisServer(t, '127.0.0.1', REGISTERED);
  await t.rejects(lookupDomain('example.test', options(t, [], { whois: whois.address }), NOW), { message: REFUSED });
  const port = whois.address.split(':')[1];
  await t.rejects(lookupDomain('example.test', options(t, [], { whois: `localhost:${port}` }), NOW), { message: /localhost resolves to (127\.0\.0\.1|::1), a loopback address/ }, 'a localhost name is loopback too');
  t.equal(whois.seen.connections, 0, 'the WHOIS server was never connected to');

  const out = await lookupDomain('example.test', options(t, ['127.0.0.0/8'], { whois: whois.address }), NOW);
  t.match(out, { source: 'whois', server: whois.address, registrar: 'Loopback Registrar LLC', expires_at: '2027-03-01T00:00:00.000Z' });
  t.equal(whois.seen.connections, 1);
});

t.test('RDAP over HTTP on loopback: refused with the setting named, no request; allowed by the allow list', async (t) => {
  const rdap = await rdapServer(t, '127.0.0.1', (_path, res) => rdapDomain(res));
  const whois = await whoisServer(t, '127.0.0.1', REGISTERED);
  const err = await lookupDomain('example.test', options(t, [], { rdap: rdap.base, whois: whois.address }), NOW).then(() => null, (e: Error) => e);
  t.match(err?.message, /^RDAP: .*127\.0\.0\.1, a loopback address.*VANTAGE_DELIVERY_ALLOW_CIDRS.*; WHOIS: .*127\.0\.0\.1, a loopback address/, 'both sources refused, each with its reason');
  t.equal(rdap.seen.requests, 0, 'the RDAP server got no request');
  t.equal(whois.seen.connections, 0);

  const out = await lookupDomain('example.test', options(t, ['127.0.0.0/8'], { rdap: rdap.base, whois: whois.address }), NOW);
  t.match(out, { source: 'rdap', server: rdap.base, expires_at: '2027-03-01T00:00:00.000Z', rdap_error: null });
});

t.test('an RDAP redirect from an allowed server to a refused one is not followed', async (t) => {
  const target = await rdapServer(t, '127.0.0.1', (_path, res) => rdapDomain(res));
  const first = await rdapServer(t, '127.0.0.2', (path, res) => {
    res.writeHead(302, { location: new URL(path.replace(/^\/rdap\//, ''), target.base).href }).end();
  });
  const whois = await whoisServer(t, '127.0.0.3', 'No match for "EXAMPLE.TEST".\r\n');
  const err = await lookupDomain('example.test', options(t, ['127.0.0.2/32', '127.0.0.3/32'], { rdap: first.base, whois: whois.address }), NOW).then(() => null, (e: Error) => e);
  t.match(err?.message, /^RDAP: .*127\.0\.0\.1, a loopback address.*VANTAGE_DELIVERY_ALLOW_CIDRS/);
  t.equal(first.seen.requests, 1, 'the allowed server was asked');
  t.equal(target.seen.requests, 0, 'the redirect target got nothing');

  const out = await lookupDomain('example.test', options(t, ['127.0.0.0/8'], { rdap: first.base, whois: whois.address }), NOW);
  t.match(out, { source: 'rdap', expires_at: '2027-03-01T00:00:00.000Z' }, 'followed when the policy allows the hop');
  t.equal(target.seen.requests, 1);
});

t.test('a WHOIS referral from an allowed server to a refused one is not followed', async (t) => {
  const registrar = await whoisServer(t, '127.0.0.1', REGISTERED);
  const registry = await whoisServer(t, '127.0.0.2', whoisRecord(['   Domain Name: EXAMPLE.TEST', `   Registrar WHOIS Server: whois://${registrar.address}`]));
  const err = await lookupDomain('example.test', options(t, ['127.0.0.2/32'], { whois: registry.address }), NOW).then(() => null, (e: Error) => e);
  t.match(err?.message, new RegExp(`WHOIS: referral from ${registry.address} to ${registrar.address}: ${REFUSED.source}`));
  t.equal(registry.seen.connections, 1, 'the registry was asked');
  t.equal(registrar.seen.connections, 0, 'the referred server was never connected to');

  const out = await lookupDomain('example.test', options(t, ['127.0.0.0/8'], { whois: registry.address }), NOW);
  t.match(out, { source: 'whois', server: registrar.address, registrar: 'Loopback Registrar LLC', expires_at: '2027-03-01T00:00:00.000Z' }, 'followed when the policy allows it');
});
