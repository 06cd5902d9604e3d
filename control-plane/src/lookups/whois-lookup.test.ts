import { createServer as createHttpServer } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { createOutboundConnector } from '../delivery/connector.js';
import { createOutboundPolicy } from '../delivery/outbound-policy.js';
import { parseBootstrap, rdapServersFor } from './rdap-bootstrap.js';
import { lookupDomain } from './whois-lookup.js';

/* Registry look-ups against an RDAP server and a WHOIS server on loopback. */

const NOW = () => new Date('2026-11-22T00:00:00Z');

const RDAP_DOMAIN = {
  objectClassName: 'domain', ldhName: 'EXAMPLE.TEST',
  status: ['client transfer prohibited'],
  events: [{ eventAction: 'registration', eventDate: '2001-01-01T00:00:00Z' }, { eventAction: 'expiration', eventDate: '2026-12-12T04:00:00Z' }],
  entities: [{ objectClassName: 'entity', roles: ['registrar'], publicIds: [{ type: 'IANA Registrar ID', identifier: '9999' }], vcardArray: ['vcard', [['version', {}, 'text', '4.0'], ['fn', {}, 'text', 'Example Registrar, Inc.']]] }],
  nameservers: [{ objectClassName: 'nameserver', ldhName: 'NS1.EXAMPLE.TEST' }, { objectClassName: 'nameserver', ldhName: 'ns2.example.test.' }],
};

const WHOIS_TEXT = [
  '   Domain Name: EXAMPLE.OTHER', '   Registrar: Other Registrar LLC', '   Registry Expiry Date: 2027-03-01T00:00:00Z',
  '   Domain Status: clientTransferProhibited https://icann.org/epp#clientTransferProhibited', '   Name Server: NS1.OTHER.TEST', '   Name Server: NS2.OTHER.TEST', '',
].join('\r\n');

async function servers(t: Tap) {
  const rdap = createHttpServer((req, res) => {
    if (req.url === '/rdap/domain/example.test') { res.setHeader('content-type', 'application/rdap+json'); res.end(JSON.stringify(RDAP_DOMAIN)); return; }
    if (req.url === '/rdap/domain/broken.test') { res.statusCode = 503; res.end(); return; }
    res.statusCode = 404; res.end();
  });
  const queries: string[] = [];
  const whois = createTcpServer((s) => s.once('data', (d) => { queries.push(d.toString()); s.end(WHOIS_TEXT); }));
  await new Promise<void>((r) => rdap.listen(0, '127.0.0.1', r));
  await new Promise<void>((r) => whois.listen(0, '127.0.0.1', r));
  // The servers are on loopback: the outbound policy allows it here (lookup-policy.test.ts tests the refusals).
  const connector = createOutboundConnector(createOutboundPolicy({ probe_allow_cidrs: [], delivery_allow_cidrs: ['127.0.0.0/8'] }));
  t.teardown(() => { rdap.close(); whois.close(); return connector.close(); });
  const bootstrap = parseBootstrap(JSON.stringify({ version: '1.0', services: [[['test'], [`http://127.0.0.1:${(rdap.address() as AddressInfo).port}/rdap`]]] }));
  return { bootstrap, connector, whois_server: () => `127.0.0.1:${(whois.address() as AddressInfo).port}`, queries, timeout_ms: 5000 };
}
type Tap = { teardown(fn: () => unknown): void };

t.test('bootstrap: longest matching entry', async (t) => {
  const b = parseBootstrap(JSON.stringify({ version: '1.0', services: [[['uk'], ['https://a.example/']], [['co.uk'], ['https://b.example']]] }));
  t.same(rdapServersFor(b, 'shop.co.uk'), ['https://b.example/']);
  t.same(rdapServersFor(b, 'gov.uk'), ['https://a.example/']);
  t.same(rdapServersFor(b, 'x.com'), []);
});

t.test('RDAP answers: registrar, expiry, name servers', async (t) => {
  const opts = await servers(t);
  const out = await lookupDomain('Example.Test', opts, NOW);
  t.match(out, {
    domain: 'example.test', source: 'rdap', registrar: 'Example Registrar, Inc.', expires_at: '2026-12-12T04:00:00.000Z', days_until_expiry: 20,
    name_servers: ['ns1.example.test', 'ns2.example.test'], statuses: ['client transfer prohibited'], rdap_error: null,
  });
  t.equal(opts.queries.length, 0, 'no WHOIS when RDAP answered');
});

t.test('RDAP fails: WHOIS on port 43 answers, parsed by whoiser', async (t) => {
  const opts = await servers(t);
  const out = await lookupDomain('broken.test', opts, NOW);
  t.match(out, { source: 'whois', registrar: 'Other Registrar LLC', expires_at: '2027-03-01T00:00:00.000Z', days_until_expiry: 99, name_servers: ['ns1.other.test', 'ns2.other.test'], statuses: ['clientTransferProhibited'] });
  t.match(out.rdap_error, /HTTP 503/);
  t.same(opts.queries, ['broken.test\r\n']);
});

t.test('no source: the error names both', async (t) => {
  const opts = await servers(t);
  await t.rejects(lookupDomain('gone.test', { ...opts, whois_server: () => '127.0.0.1:1' }, NOW), /not found.*; WHOIS: /);
});
