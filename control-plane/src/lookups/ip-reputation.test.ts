import { mkdtemp, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startDnsServer } from '@vantage/node-agent/test-support/dns-server';
import { call, createApiKey, registerUser, testApp } from '../test-support/app.js';

// Evidence from list files the test writes (a Tor exit list in the Tor Project's exit-addresses
// format, VPN, proxy and abuse ASN lists) and the shipped hosting ASN list; locations and ASNs from
// the shipped GeoLite2/ASN data; domains resolved by a real DNS server on loopback.
const dir = await mkdtemp(join(tmpdir(), 'reputation-'));
const torFile = join(dir, 'exit-addresses');
const writeTor = (text: string) => writeFile(`${torFile}.new`, text).then(() => rename(`${torFile}.new`, torFile));
await writeTor('ExitNode 0011BD2485AD45D984EC4159C88FC066E5E3300E\nPublished 2026-11-28 10:00:00\nLastStatus 2026-11-28 11:00:00\nExitAddress 81.2.69.142 2026-11-28 11:02:11\n');
await writeFile(join(dir, 'vpn.txt'), '# vpn exits\n1.1.1.0/24\n');
await writeFile(join(dir, 'proxy.txt'), '1.1.1.1\n9.9.9.9 # open proxy\n2001:db8:77::/48\n');
await writeFile(join(dir, 'abuse.txt'), 'AS20712 test entry\n');
const dns = await startDnsServer();
t.teardown(() => dns.close());
const config = {
  lookup_dns_server: dns.server, lookup_dns_timeout_ms: 400,
  reputation_tor_exit_file: torFile, reputation_vpn_files: [join(dir, 'vpn.txt')], reputation_proxy_files: [join(dir, 'proxy.txt')],
  reputation_abuse_asn_file: join(dir, 'abuse.txt'), reputation_rate_limit_anonymous: 1000, reputation_rate_limit_keyed: 3,
  // Fixed windows: an hour's, so the four requests of a limit test never straddle two windows (a minute's did once).
  rate_limit_window_s: 3600,
};
const { app } = await testApp(t, { config });
const reputation = async (q: string, token?: string) => call(app, 'GET', `/v1/ip/reputation?q=${encodeURIComponent(q)}`, { token });

t.test('weighted evidence, score, risk level and types', async (t) => {
  const tor = await reputation('81.2.69.142');
  t.equal(tor.status, 200);
  t.same(tor.body.data, {
    ip: '81.2.69.142', score: 100, risk_level: 'high', types: ['tor'],
    evidence: [
      { signal: 'tor_exit', description: '81.2.69.142 is on the Tor exit list', weight: 70 },
      { signal: 'abuse_asn', description: 'AS20712 (Andrews & Arnold Ltd) is on the abuse ASN list', weight: 40 },
    ],
    country: 'GB', city: 'Bracknell', asn: 'AS20712', isp: 'Andrews & Arnold Ltd',
  });
  const both = await reputation('1.1.1.1');
  t.same(both.body.data.types, ['vpn', 'hosting'], 'on the VPN and the proxy list: vpn only, never both');
  t.same(both.body.data.evidence.map((e: { signal: string }) => e.signal), ['vpn', 'hosting']);
  t.same([both.body.data.score, both.body.data.risk_level, both.body.data.asn], [55, 'medium', 'AS13335']);
  const proxy = await reputation('9.9.9.9');
  t.same([proxy.body.data.types, proxy.body.data.score, proxy.body.data.risk_level], [['proxy'], 45, 'medium']);
  const hosting = await reputation('8.8.8.8');
  t.same([hosting.body.data.types, hosting.body.data.score, hosting.body.data.risk_level], [['hosting'], 20, 'low']);
  const home = await reputation('86.1.1.1');
  t.same([home.body.data.types, home.body.data.score, home.body.data.evidence, home.body.data.isp], [['residential'], 0, [], 'Virgin Media Limited']);
  const v6 = await reputation('2001:db8:77::5');
  t.same([v6.body.data.score, v6.body.data.types], [0, []], 'a documentation (reserved) address is never judged, even when a list names its range');
  const lan = await reputation('10.0.0.1');
  t.same([lan.body.data.score, lan.body.data.types, lan.body.data.country, lan.body.data.asn], [0, [], null, null]);
});

t.test('a domain is judged by its address; missing names 404, a silent resolver 503', async (t) => {
  const domain = await reputation('Example.test');
  t.equal(domain.status, 200);
  t.equal(domain.body.data.ip, '198.18.0.10', 'the first A record');
  const missing = await reputation('nope.example.test');
  t.same([missing.status, missing.body.error.code, missing.body.error.details.reason], [404, 'NOT_FOUND', 'NXDOMAIN']);
  const silent = await reputation('silent.example.test');
  t.same([silent.status, silent.body.error.code], [503, 'UNAVAILABLE']);
  t.ok(Number(silent.headers.get('retry-after')) >= 1);
  for (const q of ['not a host', '1.2.3.4.5', 'localhost']) {
    const bad = await reputation(q);
    t.same([bad.status, bad.body.error.code, bad.body.error.details.fields[0].path], [400, 'VALIDATION_FAILED', 'q'], q);
  }
});

t.test('the Tor exit list is read again when the operator replaces the file', async (t) => {
  t.same((await reputation('86.1.1.1')).body.data.types, ['residential']);
  await writeTor('ExitAddress 86.1.1.1 2026-11-28 12:00:00\n');
  const deadline = Date.now() + 20_000;
  let types: string[] = [];
  while (Date.now() < deadline) {
    types = (await reputation('86.1.1.1')).body.data.types;
    if (types.includes('tor')) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  t.same(types, ['tor']);
  const old = (await reputation('81.2.69.142')).body.data;
  t.same([old.types, old.evidence.map((e: { signal: string }) => e.signal)], [['residential'], ['abuse_asn']], 'the old exit is gone with the old file');
});

t.test('per-key limit, and usage counted per key and day, visible through the account', async (t) => {
  const user = await registerUser(app);
  const key = await createApiKey(app, user.access_token, ['read']);
  for (let i = 0; i < 3; i++) t.equal((await reputation('8.8.8.8', key.key)).status, 200);
  const over = await reputation('8.8.8.8', key.key);
  t.equal(over.status, 429);
  t.equal(over.body.error.code, 'RATE_LIMIT_EXCEEDED');
  t.equal(over.headers.get('x-ratelimit-limit'), '3');
  t.ok(Number(over.headers.get('retry-after')) >= 1);
  const usage = await call(app, 'GET', '/v1/account/lookup-usage', { token: user.access_token });
  t.equal(usage.status, 200);
  t.same(usage.body.data, { items: [{ key_id: key.id, lookup: 'ip_reputation', day: new Date().toISOString().slice(0, 10), count: 3 }], total: 3 });
  const other = await registerUser(app);
  t.same((await call(app, 'GET', '/v1/account/lookup-usage', { token: other.access_token })).body.data, { items: [], total: 0 }, 'another account sees none of it');
  t.equal((await call(app, 'GET', '/v1/account/lookup-usage')).status, 401);
  t.equal((await call(app, 'GET', '/v1/account/lookup-usage?from=2026-02-01&to=2026-01-01', { token: user.access_token })).status, 400);
});

t.test('anonymous callers are limited per source address', async (t) => {
  const small = await testApp(t, { config: { ...config, reputation_rate_limit_anonymous: 2 } });
  const get = () => fetch(`${small.url}/v1/ip/reputation?q=8.8.8.8`);
  t.equal((await get()).status, 200);
  t.equal((await get()).status, 200);
  const over = await get();
  t.equal(over.status, 429);
  t.equal(over.headers.get('x-ratelimit-limit'), '2');
  t.equal(((await over.json()) as { error: { code: string } }).error.code, 'RATE_LIMIT_EXCEEDED');
});
