import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { testApp } from '../test-support/app.js';

/*
 * GET /v1/info/whois against an RDAP server and WHOIS servers on loopback, the RFC 9224
 * bootstrap files (domains and IPv4) pointed at them through configuration.
 */

type Tap = { teardown(fn: () => unknown): void };
const EXPIRY = '2027-03-01T00:00:00Z';

const rdapJson = (res: ServerResponse, doc: unknown) => { res.setHeader('content-type', 'application/rdap+json'); res.end(JSON.stringify(doc)); };

async function registries(t: Tap) {
  const seen: string[] = [];
  const rdap = createHttpServer((req, res) => {
    seen.push(req.url ?? '');
    if (req.url === '/rdap/domain/example.test') {
      return rdapJson(res, {
        objectClassName: 'domain', ldhName: 'EXAMPLE.TEST', status: ['active'], events: [{ eventAction: 'expiration', eventDate: EXPIRY }],
        entities: [{ objectClassName: 'entity', roles: ['registrar'], vcardArray: ['vcard', [['version', {}, 'text', '4.0'], ['fn', {}, 'text', 'Loopback Registrar, Inc.']]] }],
        nameservers: [{ objectClassName: 'nameserver', ldhName: 'NS1.EXAMPLE.TEST.' }, { objectClassName: 'nameserver', ldhName: 'ns2.example.test' }],
      });
    }
    if (req.url === '/rdap/ip/192.0.2.77') {
      return rdapJson(res, {
        objectClassName: 'ip network', handle: 'TEST-NET-1', name: 'DOCUMENTATION', startAddress: '192.0.2.0', endAddress: '192.0.2.255', country: 'NL', port43: 'whois.ripe.net',
        cidr0_cidrs: [{ v4prefix: '192.0.2.0', length: 24 }], status: ['active'],
        entities: [{ objectClassName: 'entity', roles: ['registrant'], vcardArray: ['vcard', [['fn', {}, 'text', 'Example Holder B.V.']]] }],
      });
    }
    if (req.url === '/rdap/domain/thin.test') { res.statusCode = 503; return res.end(); }
    if (req.url === '/rdap/domain/slow.test') return; // never answers
    res.statusCode = 404;
    res.end();
  });
  // The registry's WHOIS refers to the registrar's, which has the record; unknown names: "No match".
  const queries: string[] = [];
  const registrar = createTcpServer((s) => s.once('data', (d) => {
    queries.push(`registrar:${d.toString().trim()}`);
    s.end(['Domain Name: THIN.TEST', 'Registrar: Referral Registrar LLC', `Registrar Registration Expiration Date: ${EXPIRY}`, 'Name Server: NS1.THIN.TEST', ''].join('\r\n'));
  }));
  await new Promise<void>((r) => registrar.listen(0, '127.0.0.1', r));
  const registry = createTcpServer((s) => s.once('data', (d) => {
    const q = d.toString().trim();
    queries.push(`registry:${q}`);
    if (q === 'slow.test') return;
    if (q !== 'thin.test') return void s.end(`No match for "${q.toUpperCase()}".\r\n`);
    s.end(['Domain Name: THIN.TEST', `Registrar WHOIS Server: 127.0.0.1:${(registrar.address() as AddressInfo).port}`, ''].join('\r\n'));
  }));
  await new Promise<void>((r) => rdap.listen(0, '127.0.0.1', r));
  await new Promise<void>((r) => registry.listen(0, '127.0.0.1', r));
  const dir = mkdtempSync(path.join(tmpdir(), 'vantage-whois-'));
  t.teardown(() => { rdap.closeAllConnections(); rdap.close(); registry.close(); registrar.close(); rmSync(dir, { recursive: true, force: true }); });
  const base = `http://127.0.0.1:${(rdap.address() as AddressInfo).port}/rdap/`;
  writeFileSync(path.join(dir, 'dns.json'), JSON.stringify({ version: '1.0', services: [[['test'], [base]]] }));
  writeFileSync(path.join(dir, 'ipv4.json'), JSON.stringify({ version: '1.0', services: [[['192.0.2.0/24'], [base]]] }));
  return {
    seen, queries,
    config: {
      rdap_bootstrap_file: path.join(dir, 'dns.json'), rdap_ip_bootstrap_files: [path.join(dir, 'ipv4.json')],
      whois_servers: [`test=127.0.0.1:${(registry.address() as AddressInfo).port}`], delivery_allow_cidrs: ['127.0.0.0/8'], lookup_timeout_ms: 1000,
    },
  };
}

const get = async (app: { request(p: string): Response | Promise<Response> }, q: string) => {
  const res = await app.request(`/v1/info/whois?q=${encodeURIComponent(q)}`);
  return { status: res.status, headers: res.headers, body: await res.json() as { data: Record<string, any>; error: Record<string, any> } };
};

t.test('a domain from RDAP, normalised; the second answer from the cache', async (t) => {
  const reg = await registries(t);
  const { app } = await testApp(t, { config: reg.config });
  const first = await get(app, 'Example.TEST.');
  t.equal(first.status, 200);
  t.match(first.body.data, { domain: 'example.test', registrar: 'Loopback Registrar, Inc.', expires_at: '2027-03-01T00:00:00.000Z', source: 'rdap', statuses: ['active'], network: null, cached: false });
  t.same(first.body.data.name_servers, ['ns1.example.test', 'ns2.example.test']);
  const second = await get(app, 'example.test');
  t.match(second.body.data, { registrar: 'Loopback Registrar, Inc.', cached: true });
  t.equal(reg.seen.filter((u) => u === '/rdap/domain/example.test').length, 1, 'one RDAP request for both');
});

t.test('RDAP fails: port-43 WHOIS, following the registry\'s referral', async (t) => {
  const reg = await registries(t);
  const { app } = await testApp(t, { config: reg.config });
  const res = await get(app, 'thin.test');
  t.equal(res.status, 200);
  t.match(res.body.data, { domain: 'thin.test', source: 'whois', registrar: 'Referral Registrar LLC', expires_at: '2027-03-01T00:00:00.000Z', name_servers: ['ns1.thin.test'] });
  t.same(reg.queries, ['registry:thin.test', 'registrar:thin.test']);
});

t.test('an IP address from its RIR\'s RDAP (bootstrap by prefix)', async (t) => {
  const reg = await registries(t);
  const { app } = await testApp(t, { config: reg.config });
  const res = await get(app, '192.0.2.77');
  t.equal(res.status, 200);
  t.match(res.body.data, {
    domain: '192.0.2.77', registrar: 'RIPE NCC', expires_at: null, name_servers: [], source: 'rdap',
    network: { handle: 'TEST-NET-1', name: 'DOCUMENTATION', start_address: '192.0.2.0', end_address: '192.0.2.255', cidrs: ['192.0.2.0/24'], country: 'NL', organisation: 'Example Holder B.V.' },
  });
});

t.test('errors: not registered 404 with the reason; no answer 503 with Retry-After; bad q 400 naming q', async (t) => {
  const reg = await registries(t);
  const { app } = await testApp(t, { config: reg.config });
  const missing = await get(app, 'nothing-here.test');
  t.equal(missing.status, 404);
  t.match(missing.body.error, { code: 'NOT_FOUND', details: { q: 'nothing-here.test', reason: /not found at .*; WHOIS: no registration data/ } });
  const slow = await get(app, 'slow.test');
  t.equal(slow.status, 503);
  t.equal(slow.headers.get('retry-after'), '30');
  t.match(slow.body.error, { code: 'UNAVAILABLE', details: { timeout: true } });
  for (const q of ['https://example.test/', 'localhost', '192.0.2.0/24', 'a..b']) {
    const bad = await get(app, q);
    t.equal(bad.status, 400, q);
    t.match(JSON.stringify(bad.body.error), /"q"/, `${q}: names q`);
  }
});
