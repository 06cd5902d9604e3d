import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import { startDnsServer } from '@vantage/node-agent/test-support/dns-server';
import { call, testApp } from '../test-support/app.js';

// A real authoritative DNS server (UDP and TCP) on loopback for the zone example.test
// (node-agent test-support/dns-server.ts); dig (bind9-dnsutils) is the reference formatter.
const dns = await startDnsServer();
t.teardown(() => dns.close());
const { app } = await testApp(t, { config: { lookup_dns_server: dns.server, lookup_dns_timeout_ms: 400, delivery_allow_cidrs: ['127.0.0.0/8'] } });

const run = promisify(execFile);
/** dig's answer section for `name type` as `{type, value, ttl}` rows. */
async function dig(name: string, type: string): Promise<Array<{ type: string; value: string; ttl: number }>> {
  const { stdout } = await run('dig', [`@${dns.host}`, '-p', String(dns.port), '+nocookie', '+noall', '+answer', name, type]);
  return stdout.split('\n').filter((l) => l && !l.startsWith(';')).map((line) => {
    const m = /^(\S+)\s+(\d+)\s+IN\s+(\S+)\s+(.*)$/.exec(line);
    if (!m) throw new Error(`unexpected dig line ${line}`);
    return { type: m[3]!, value: m[4]!, ttl: Number(m[2]) };
  });
}
const haveDig = await run('dig', ['-v']).then(() => true, () => false);

t.test('every type of the zone, each value exactly as dig prints it', { skip: haveDig ? false : 'dig (bind9-dnsutils) is not installed' }, async (t) => {
  const all = await call(app, 'GET', '/v1/info/dns?q=example.test');
  t.equal(all.status, 200);
  t.equal(all.body.data.domain, 'example.test');
  for (const type of ['A', 'AAAA', 'MX', 'TXT', 'NS', 'SOA']) {
    const expected = await dig('example.test', type);
    t.ok(expected.length > 0, `dig sees ${type}`);
    t.same(all.body.data.records.filter((r: { type: string }) => r.type === type), expected, type);
    const one = await call(app, 'GET', `/v1/info/dns?q=example.test&type=${type.toLowerCase()}`);
    t.same(one.body.data.records, expected, `type=${type.toLowerCase()}`);
  }
  t.notOk(all.body.data.records.some((r: { type: string }) => r.type === 'CAA'), 'only the seven types are asked');
  t.same((await call(app, 'GET', '/v1/info/dns?q=example.test&type=')).body.data, all.body.data, 'an empty type asks all seven');
  const alias = await call(app, 'GET', '/v1/info/dns?q=WWW.example.test.&type=A');
  t.equal(alias.body.data.domain, 'www.example.test', 'lower case, no trailing dot');
  t.same(alias.body.data.records, await dig('www.example.test', 'A'), 'CNAME then the target\'s addresses');
  t.same(alias.body.data.records[0], { type: 'CNAME', value: 'example.test.', ttl: 300 });
});

t.test('a reply truncated over UDP is asked again over TCP', async (t) => {
  const before = dns.stats.tcp;
  const big = await call(app, 'GET', '/v1/info/dns?q=big.example.test&type=TXT');
  t.equal(big.status, 200);
  t.equal(big.body.data.records.length, 40);
  t.ok(dns.stats.tcp > before, 'TCP was used');
});

t.test('a name that does not exist: 404 NOT_FOUND with the reason', async (t) => {
  const res = await call(app, 'GET', '/v1/info/dns?q=nope.example.test');
  t.equal(res.status, 404);
  t.equal(res.body.error.code, 'NOT_FOUND');
  t.equal(res.body.error.details.reason, 'NXDOMAIN');
  t.match(res.body.error.message, /nope\.example\.test does not exist/);
  const nodata = await call(app, 'GET', '/v1/info/dns?q=empty.example.test&type=MX');
  t.same([nodata.status, nodata.body.data.records], [200, []], 'a name without records of the type is NODATA, not 404');
});

t.test('a server that does not answer or fails: 503 UNAVAILABLE with Retry-After', async (t) => {
  for (const name of ['silent.example.test', 'servfail.example.test']) {
    const res = await call(app, 'GET', `/v1/info/dns?q=${name}&type=A`);
    t.equal(res.status, 503, name);
    t.equal(res.body.error.code, 'UNAVAILABLE', name);
    t.ok(Number(res.headers.get('retry-after')) >= 1, `${name} Retry-After`);
  }
});

t.test('server: the caller\'s own DNS server, under the outbound address policy', async (t) => {
  const asked = await call(app, 'GET', `/v1/info/dns?q=example.test&type=NS&server=${encodeURIComponent(dns.server)}`);
  t.same(asked.body.data.records.map((r: { value: string }) => r.value).sort(), ['ns1.example.test.', 'ns2.example.test.']);
  const refused = await call(app, 'GET', '/v1/info/dns?q=example.test&server=192.168.1.1');
  t.equal(refused.status, 422);
  t.equal(refused.body.error.code, 'PROBE_TARGET_INVALID');
  t.match(refused.body.error.message, /^server: 192\.168\.1\.1, a private address/);
  const malformed = await call(app, 'GET', '/v1/info/dns?q=example.test&server=host:99999');
  t.equal(malformed.status, 400);
  t.equal(malformed.body.error.details.fields[0].path, 'server');
});

t.test('q or type of the wrong kind: 400 VALIDATION_FAILED naming the parameter', async (t) => {
  for (const q of ['1.2.3.4', 'localhost', 'a b.example', '-x.example', 'x'.repeat(64) + '.example']) {
    const res = await call(app, 'GET', `/v1/info/dns?q=${encodeURIComponent(q)}`);
    t.equal(res.status, 400, q);
    t.equal(res.body.error.details.fields[0].path, 'q', q);
  }
  const type = await call(app, 'GET', '/v1/info/dns?q=example.test&type=PTR');
  t.equal(type.status, 400);
  t.equal(type.body.error.details.fields[0].path, 'type');
});
