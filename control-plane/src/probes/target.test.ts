import t from 'tap';
import { PROBE_PARAMS, type ProbeType } from '@vantage/shared-protocol';
import { compileAddressPolicy, firstBlockedAddress, systemResolver } from './address-policy.js';
import { spreadPick } from './select.js';
import { parseTarget, TargetSyntaxError, taskTimeoutMs } from './target.js';

const params = (type: ProbeType, p: Record<string, unknown> = {}) => PROBE_PARAMS[type].parse(p) as never;

t.test('parseTarget accepts each type\'s grammar', async (t) => {
  const cases: Array<[ProbeType, string, Record<string, unknown>, { hosts: string[]; port: number | null }]> = [
    ['http', 'https://198.18.1.10/path?q=1', {}, { hosts: ['198.18.1.10'], port: 443 }],
    ['http', 'http://[fd00:7661::10]:8080/', {}, { hosts: ['fd00:7661::10'], port: 8080 }],
    ['http', 'http://Example.TEST/', {}, { hosts: ['example.test'], port: 80 }],
    ['ping', '198.18.1.10', {}, { hosts: ['198.18.1.10'], port: null }],
    ['ping', 'fd00:7661::10', {}, { hosts: ['fd00:7661::10'], port: null }],
    ['traceroute', '[fd00:7661::10]', {}, { hosts: ['fd00:7661::10'], port: null }],
    ['traceroute', 'host.example.test', {}, { hosts: ['host.example.test'], port: null }],
    ['mtr', '198.18.1.10', {}, { hosts: ['198.18.1.10'], port: null }],
    ['smtp', 'mx.example.test', {}, { hosts: ['mx.example.test'], port: 25 }],
    ['smtp', '[fd00:7661::25]:587', {}, { hosts: ['fd00:7661::25'], port: 587 }],
    ['ntp', 'ntp.example.test', {}, { hosts: ['ntp.example.test'], port: 123 }],
    ['ntp', '198.18.1.123:1123', {}, { hosts: ['198.18.1.123'], port: 1123 }],
    ['headers', 'http://198.18.1.10/', {}, { hosts: ['198.18.1.10'], port: 80 }],
    ['speedtest', 'https://198.18.1.10/100MB.bin', {}, { hosts: ['198.18.1.10'], port: 443 }],
    ['ssl', 'www.example.test', {}, { hosts: ['www.example.test'], port: 443 }],
    ['ssl', '[fd00:7661::443]:8443', {}, { hosts: ['fd00:7661::443'], port: 8443 }],
    ['dns', 'example.test', {}, { hosts: [], port: null }],
    ['dns', '_dmarc.example.test', { server: '198.18.1.53' }, { hosts: ['198.18.1.53'], port: 53 }],
    ['dns', 'example.test', { server: '[fd00:7661::53]:5353' }, { hosts: ['fd00:7661::53'], port: 5353 }],
    ['tcp', '198.18.1.10:443', {}, { hosts: ['198.18.1.10'], port: 443 }],
    ['tcp', '198.18.1.10', { port: 22 }, { hosts: ['198.18.1.10'], port: 22 }],
    ['tcp', '[fd00:7661::10]:80', { port: 80 }, { hosts: ['fd00:7661::10'], port: 80 }],
  ];
  for (const [type, target, p, want] of cases) t.same(parseTarget(type, target, params(type, p)), want, `${type} ${target}`);
});

function syntaxPath(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (err) {
    return err instanceof TargetSyntaxError ? err.path : `unexpected ${String(err)}`;
  }
}

t.test('parseTarget refuses malformed targets, naming the field', async (t) => {
  const cases: Array<[ProbeType, string, Record<string, unknown>, string]> = [
    ['http', 'ftp://198.18.1.10/', {}, 'target'],
    ['http', '198.18.1.10', {}, 'target'],
    ['http', 'not a url', {}, 'target'],
    ['ping', 'http://198.18.1.10/', {}, 'target'],
    ['ping', '198.18.1.10:80', {}, 'target'],
    ['ping', 'bad host!', {}, 'target'],
    ['traceroute', '-x', {}, 'target'],
    ['dns', '198.18.1.10', {}, 'target'],
    ['dns', 'exa mple.test', {}, 'target'],
    ['tcp', '198.18.1.10', {}, 'params.port'],
    ['tcp', '198.18.1.10:80', { port: 81 }, 'params.port'],
    ['tcp', '198.18.1.10:0', {}, 'target'],
    ['tcp', '198.18.1.10:99999', {}, 'target'],
    ['tcp', 'a:b:c', {}, 'target'],
  ];
  for (const [type, target, p, path] of cases) {
    t.equal(syntaxPath(() => parseTarget(type, target, params(type, p))), path, `${type} ${target} → ${path}`);
  }
  t.equal(syntaxPath(() => parseTarget('dns', 'example.test', params('dns', { server: 'a:b:c' }))), 'params.server');
});

t.test('address policy: only public unicast, unless in the allow-list', async (t) => {
  const plain = compileAddressPolicy([]);
  const allowing = compileAddressPolicy(['198.18.0.0/15', 'fd00:7661::/32']);
  const cases: Array<[string, string | true, boolean]> = [
    ['8.8.8.8', true, true],
    ['2001:4860:4860::8888', true, true],
    ['127.0.0.1', 'loopback', false],
    ['::1', 'loopback', false],
    ['10.1.2.3', 'private', false],
    ['192.168.0.1', 'private', false],
    ['172.16.0.1', 'private', false],
    ['169.254.169.254', 'linkLocal', false],
    ['fe80::1', 'linkLocal', false],
    ['100.64.0.1', 'carrierGradeNat', false],
    ['0.0.0.0', 'unspecified', false],
    ['224.0.0.1', 'multicast', false],
    ['240.0.0.1', 'reserved', false],
    ['203.0.113.9', 'reserved', false],
    ['::ffff:127.0.0.1', 'loopback', false],
    ['::127.0.0.1', 'ipv4Compatible', false],
    ['::7f00:1', 'ipv4Compatible', false],
    ['64:ff9b::7f00:1', 'loopback', false],
    ['64:ff9b::808:808', true, true],
    ['2002:7f00:1::1', '6to4', false],
    ['2001::1', 'teredo', false],
    ['198.18.1.10', 'reserved', true],
    ['fd00:7661::10', 'uniqueLocal', true],
    ['fd00:7662::10', 'uniqueLocal', false],
  ];
  for (const [address, range, allowed_by_list] of cases) {
    const v = plain(address);
    if (range === true) t.same(v, { allowed: true }, `${address} public`);
    else t.same(v, { allowed: false, range }, `${address} is ${range}`);
    t.equal(allowing(address).allowed, range === true || allowed_by_list, `${address} with allow-list`);
  }
  t.throws(() => compileAddressPolicy(['not-a-cidr']));
});

t.test('names are judged by what they resolve to (system resolver)', async (t) => {
  const policy = compileAddressPolicy([]);
  const never = async (): Promise<string[]> => { throw new Error('resolver must not be asked'); };
  t.match(await firstBlockedAddress('localhost', policy, systemResolver()), { range: 'loopback' });
  t.equal(await firstBlockedAddress('1.1.1.1', policy, never), null, 'a public literal needs no lookup');
  t.match(await firstBlockedAddress('mixed.test', policy, async () => ['1.1.1.1', '10.0.0.1']), { address: '10.0.0.1', range: 'private' }, 'any private address blocks');
  t.equal(await firstBlockedAddress('public.test', policy, async () => ['1.1.1.1', '2606:4700::1']), null);
});

t.test('fail closed: a name that does not resolve, or not in time, is not public', async (t) => {
  const policy = compileAddressPolicy([]);
  t.match(await firstBlockedAddress('name.invalid', policy, async () => []), { address: null, range: 'unresolved', reason: /no address/ }, 'no address');
  t.match(await firstBlockedAddress('name.invalid', policy, systemResolver()), { address: null, range: 'unresolved', reason: /cannot resolve name\.invalid/ }, 'the resolver fails');
  const slowLookup = () => new Promise<{ address: string }[]>((resolve) => setTimeout(() => resolve([{ address: '1.1.1.1' }]), 3000));
  const started = Date.now();
  t.match(await firstBlockedAddress('slow.test', policy, systemResolver(100, slowLookup)), { address: null, range: 'unresolved', reason: /no answer for slow\.test within 100 ms/ });
  t.ok(Date.now() - started < 2900, 'the answer does not wait for the slow look-up');
});

t.test('every spelling of a private address is judged as that address, without a resolver', async (t) => {
  const policy = compileAddressPolicy([]);
  const never = async (): Promise<string[]> => { throw new Error('resolver must not be asked'); };
  const cases: Array<[string, string]> = [
    ['localhost.', 'loopback'], ['LOCALHOST', 'loopback'], ['db.localhost', 'loopback'],
    ['127.0.0.1.', 'loopback'], ['2130706433', 'loopback'], ['0x7f000001', 'loopback'], ['0x7f.1', 'loopback'], ['0177.0.0.1', 'loopback'], ['127.1', 'loopback'],
    ['0', 'unspecified'], ['[::]', 'unspecified'], ['::127.0.0.1', 'ipv4Compatible'], ['::7f00:1', 'ipv4Compatible'], ['::ffff:127.0.0.1', 'loopback'],
    ['64:ff9b::a00:1', 'private'], ['2002:a00:1::1', '6to4'], ['10.0.0.1.', 'private'], ['0xa.1', 'private'],
  ];
  for (const [host, range] of cases) t.match(await firstBlockedAddress(host, policy, never), { range }, host);
});

t.test('task timeout per type', async (t) => {
  t.equal(taskTimeoutMs('http', params('http', { timeout_ms: 2500 })), 2500);
  t.equal(taskTimeoutMs('ping', params('ping', { count: 4, interval_ms: 1000, timeout_ms: 5000 })), 9000);
  t.equal(taskTimeoutMs('ping', params('ping', { count: 50, interval_ms: 10000, timeout_ms: 30000 })), 300_000, 'capped at the protocol maximum');
  t.equal(taskTimeoutMs('dns', params('dns')), 5000);
  t.equal(taskTimeoutMs('tcp', params('tcp', { timeout_ms: 1000 })), 1000);
  t.equal(taskTimeoutMs('traceroute', params('traceroute', { max_hops: 5, probes_per_hop: 2, timeout_ms: 1000 })), 10_000);
  t.equal(taskTimeoutMs('traceroute', params('traceroute')), 120_000, '30 × 3 × 2000 capped at 120 s');
  t.equal(taskTimeoutMs('mtr', params('mtr')), 12_000, '10 × 1000 + 1000 + 1000 for reverse DNS');
  t.equal(taskTimeoutMs('mtr', params('mtr', { count: 100, interval_ms: 2800, timeout_ms: 100 })), 281_100);
  t.equal(taskTimeoutMs('smtp', params('smtp')), 10_000);
  t.equal(taskTimeoutMs('ntp', params('ntp')), 11_000, '3 × 1000 + 4 × 2000');
  t.equal(taskTimeoutMs('headers', params('headers')), 10_000);
  t.equal(taskTimeoutMs('speedtest', params('speedtest', { upload_bytes: 1 })), 61_000, 'two directions of 30 s + 1 s');
  t.equal(taskTimeoutMs('ssl', params('ssl')), 16_000, 'handshakes 10 s + HSTS 5 s + 1 s');
  t.equal(taskTimeoutMs('ssl', params('ssl', { timeout_ms: 3000 })), 7000, 'handshakes 3 s + HSTS 3 s + 1 s');
});

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

t.test('spreadPick spreads across countries, then ASNs', async (t) => {
  const nodes = [
    { id: 'de1', country: 'DE', asn: 1 }, { id: 'de2', country: 'DE', asn: 1 }, { id: 'de3', country: 'DE', asn: 2 },
    { id: 'us1', country: 'US', asn: 3 }, { id: 'us2', country: 'US', asn: 3 },
    { id: 'jp1', country: 'JP', asn: 4 },
  ];
  for (let seed = 1; seed <= 50; seed++) {
    const three = spreadPick(nodes, 3, seeded(seed));
    t.same(new Set(three.map((n) => n.country)).size, 3, `seed ${seed}: three countries`);
    const five = spreadPick(nodes, 5, seeded(seed));
    const de = five.filter((n) => n.country === 'DE');
    t.equal(de.length, 2, `seed ${seed}: DE gives two of five`);
    t.not(de[0]!.asn, de[1]!.asn, `seed ${seed}: DE's second pick comes from the other ASN`);
  }
  t.equal(spreadPick(nodes, 100).length, 6, 'fewer candidates than count: all of them');
  t.same(spreadPick([], 3), []);
});
