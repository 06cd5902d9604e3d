import t from 'tap';
import {
  PUBLIC_ONLY, addressRange, canonicalHost, compileTargetPolicy, intersectPolicies, isLocalhostName, parseIpLiteral,
  targetPolicySchema,
} from './address-policy.js';

// Addresses are only parsed and classified here; nothing is sent to them.
t.test('public unicast passes; every spelling of a private address is refused', async (t) => {
  const check = compileTargetPolicy(PUBLIC_ONLY);
  const cases: Array<[string, string]> = [
    ['8.8.8.8', 'public'],
    ['2606:4700::1', 'public'],
    ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b::808:808', 'public'], // NAT64 of a public address (DNS64 networks)
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['198.18.1.10', 'reserved'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['[::]', 'unspecified'],
    ['[::1]', 'loopback'],
    ['fe80::1', 'linkLocal'],
    ['fd00:7661::1', 'uniqueLocal'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['[::ffff:10.0.0.1]', 'private'],
    // IPv4-compatible (::/96): ipaddr.js alone takes `::127.0.0.1` for mapped and `::7f00:1` for unicast
    ['::127.0.0.1', 'ipv4Compatible'],
    ['::7f00:1', 'ipv4Compatible'],
    ['::8.8.8.8', 'ipv4Compatible'],
    ['::0.0.0.2', 'ipv4Compatible'],
    // NAT64 with a private IPv4 inside, and the local-use NAT64 prefix
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['64:ff9b::a00:1', 'private'],
    ['64:ff9b:1::7f00:1', 'rfc6052'],
    // 6to4 and Teredo embed IPv4 addresses too; both are refused whatever they embed
    ['2002:7f00:1::1', '6to4'],
    ['2002:a00:1::1', '6to4'],
    ['2002:808:808::1', '6to4'],
    ['2001::1', 'teredo'],
    ['::ffff:0:7f00:1', 'rfc6145'],
    ['2001:db8::1', 'reserved'],
    ['100::1', 'discard'],
    ['4000::1', 'reserved'], // outside 2000::/3: nothing global is allocated there
    ['fec0::1', 'deprecatedSiteLocal'],
    ['fe80::1%eth0', 'invalid'],
    ['localhost', 'invalid'],
    ['127.0.0.1.', 'invalid'],
    ['2130706433', 'invalid'],
  ];
  for (const [address, range] of cases) {
    const verdict = check(address);
    if (range === 'public') t.same(verdict, { allowed: true }, address);
    else t.same(verdict, { allowed: false, range }, address);
  }
});

t.test('addressRange names the embedded IPv4 range of mapped and NAT64 addresses', async (t) => {
  t.equal(addressRange(parseIpLiteral('::ffff:169.254.169.254')!), 'linkLocal');
  t.equal(addressRange(parseIpLiteral('64:ff9b::c0a8:101')!), 'private');
  t.equal(parseIpLiteral('not an address'), null);
  t.equal(parseIpLiteral('0x7f.1'), null, 'only strict literals: other spellings go through canonicalHost or the resolver');
});

t.test('allow_private and allow_cidrs open the refused ranges', async (t) => {
  t.same(compileTargetPolicy({ allow_private: true, allow_cidrs: [] })('127.0.0.1'), { allowed: true });
  t.same(compileTargetPolicy({ allow_private: true, allow_cidrs: [] })('junk'), { allowed: false, range: 'invalid' });
  const lab = compileTargetPolicy({ allow_private: false, allow_cidrs: ['198.18.0.0/15', 'fd00:7661::/32'] });
  t.same(lab('198.19.255.1'), { allowed: true });
  t.same(lab('::ffff:198.18.0.5'), { allowed: true }, 'a mapped address matches its IPv4 CIDR');
  t.same(lab('64:ff9b::c612:5'), { allowed: true }, 'so does a NAT64 one');
  t.same(lab('::198.18.0.5'), { allowed: false, range: 'ipv4Compatible' }, 'an IPv4-compatible one does not');
  t.same(lab('fd00:7661:1::9'), { allowed: true });
  t.same(lab('10.0.0.1'), { allowed: false, range: 'private' });
  t.same(lab('fd00:7662::1'), { allowed: false, range: 'uniqueLocal' });
  t.same(lab('127.0.0.1'), { allowed: false, range: 'loopback' });
  t.throws(() => compileTargetPolicy({ allow_private: false, allow_cidrs: ['not-a-cidr'] }), /invalid CIDR/);
});

t.test('intersectPolicies allows what both allow', async (t) => {
  const open = { allow_private: true, allow_cidrs: [] };
  const lab = { allow_private: false, allow_cidrs: ['198.18.0.0/15', 'fd00:7661::/32'] };
  t.same(intersectPolicies(open, open), open);
  t.same(intersectPolicies(open, PUBLIC_ONLY), PUBLIC_ONLY, 'a private node runs a public task public only');
  t.same(intersectPolicies(PUBLIC_ONLY, open), PUBLIC_ONLY, "an owner's task on a public node stays public");
  t.same(intersectPolicies(open, lab), lab);
  t.same(intersectPolicies(lab, open), lab);
  t.same(intersectPolicies(lab, PUBLIC_ONLY), PUBLIC_ONLY);
  t.same(intersectPolicies(lab, { allow_private: false, allow_cidrs: ['198.18.7.0/24', '10.0.0.0/8'] }).allow_cidrs, ['198.18.7.0/24']);
  t.same(intersectPolicies({ allow_private: false, allow_cidrs: ['198.18.0.0/16'] }, { allow_private: false, allow_cidrs: ['198.0.0.0/8'] }).allow_cidrs, ['198.18.0.0/16']);
  const both = compileTargetPolicy(intersectPolicies({ allow_private: false, allow_cidrs: ['127.0.0.0/8'] }, { allow_private: false, allow_cidrs: ['127.0.0.2/32'] }));
  t.same(both('127.0.0.2'), { allowed: true });
  t.same(both('127.0.0.1'), { allowed: false, range: 'loopback' });
});

t.test('localhost names and host spellings', async (t) => {
  for (const name of ['localhost', 'localhost.', 'LOCALHOST', 'a.b.localhost', 'x.localhost..']) t.ok(isLocalhostName(name), name);
  for (const name of ['localhost.example', 'notlocalhost', 'example.com']) t.notOk(isLocalhostName(name), name);
  const spellings: Array<[string, string]> = [
    ['127.0.0.1.', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['0', '0.0.0.0'],
    ['[::1]', '::1'],
    ['::127.0.0.1', '::7f00:1'],
    ['[::ffff:127.0.0.1]', '::ffff:7f00:1'],
    ['Example.COM', 'example.com'],
    ['example.com.', 'example.com.'],
    ['user@127.0.0.1', 'user@127.0.0.1'],
  ];
  for (const [text, canonical] of spellings) t.equal(canonicalHost(text), canonical, text);
});

t.test('targetPolicySchema validates CIDRs', async (t) => {
  t.ok(targetPolicySchema.safeParse({ allow_private: false, allow_cidrs: ['198.18.0.0/15'] }).success);
  t.notOk(targetPolicySchema.safeParse({ allow_private: false, allow_cidrs: ['198.18.0.0/99'] }).success);
  t.notOk(targetPolicySchema.safeParse({ allow_private: 'yes' }).success);
  t.same(targetPolicySchema.parse({ allow_private: false }), PUBLIC_ONLY);
});
