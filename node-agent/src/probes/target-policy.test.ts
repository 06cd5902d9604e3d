import t from 'tap';
import { compilePolicy, DEFAULT_POLICY } from './target-policy.js';
import { resolveTarget } from './resolve.js';

// Addresses are only parsed and classified here; nothing is sent to them.
t.test('the default policy allows public unicast only', async (t) => {
  const check = compilePolicy(DEFAULT_POLICY);
  const cases: [string, boolean, string?][] = [
    ['8.8.8.8', true],
    ['2606:4700::1', true],
    ['::ffff:8.8.8.8', true],
    ['127.0.0.1', false, 'loopback'],
    ['10.1.2.3', false, 'private'],
    ['172.16.0.1', false, 'private'],
    ['192.168.1.1', false, 'private'],
    ['169.254.169.254', false, 'linkLocal'],
    ['100.64.0.1', false, 'carrierGradeNat'],
    ['198.18.1.10', false, 'reserved'],
    ['0.0.0.0', false, 'unspecified'],
    ['224.0.0.1', false, 'multicast'],
    ['255.255.255.255', false, 'broadcast'],
    ['::1', false, 'loopback'],
    ['::', false, 'unspecified'],
    ['fe80::1', false, 'linkLocal'],
    ['fd00:7661::1', false, 'uniqueLocal'],
    ['::ffff:127.0.0.1', false, 'loopback'],
    ['64:ff9b::7f00:1', false, 'loopback'],
    ['::7f00:1', false, 'ipv4Compatible'],
    ['::127.0.0.1', false, 'ipv4Compatible'],
  ];
  for (const [address, allowed, range] of cases) {
    const verdict = check(address);
    t.equal(verdict.allowed, allowed, address);
    if (range && !verdict.allowed) t.equal(verdict.range, range, `${address} range`);
  }
});

t.test('allow_private and allow_cidrs open the refused ranges', async (t) => {
  t.equal(compilePolicy({ allow_private: true, allow_cidrs: [] })('127.0.0.1').allowed, true);
  const lab = compilePolicy({ allow_private: false, allow_cidrs: ['198.18.0.0/15', 'fd00:7661::/32'] });
  t.equal(lab('198.19.255.1').allowed, true);
  t.equal(lab('::ffff:198.18.0.5').allowed, true, 'a mapped address matches its IPv4 CIDR');
  t.equal(lab('fd00:7661:1::9').allowed, true);
  t.equal(lab('10.0.0.1').allowed, false, 'a private address outside the list');
  t.equal(lab('fd00:7662::1').allowed, false);
  t.equal(lab('127.0.0.1').allowed, false);
  t.throws(() => compilePolicy({ allow_private: false, allow_cidrs: ['not-a-cidr'] }), /invalid CIDR/);
});

t.test('resolveTarget checks the policy after resolution', async (t) => {
  const blockedName = await resolveTarget('localhost', 'v4', DEFAULT_POLICY);
  t.match(blockedName, { ok: false, error_class: 'blocked' });
  t.match(blockedName.ok ? '' : blockedName.error, /127\.0\.0\.1/);
  t.match(await resolveTarget('127.0.0.1', 'auto', DEFAULT_POLICY), { ok: false, error_class: 'blocked' });
  t.match(await resolveTarget('[::1]', 'v6', DEFAULT_POLICY), { ok: false, error_class: 'blocked' });
  t.match(await resolveTarget('localhost', 'v4', { allow_private: true, allow_cidrs: [] }), { ok: true, address: '127.0.0.1', family: 4 });
  t.match(await resolveTarget('[::1]', 'v6', { allow_private: true, allow_cidrs: [] }), { ok: true, address: '::1', family: 6 });
  t.match(await resolveTarget('127.0.0.1', 'v6', { allow_private: true, allow_cidrs: [] }), { ok: false, error_class: 'target' });
  t.match(await resolveTarget('no-such-host.invalid', 'auto', DEFAULT_POLICY), { ok: false, error_class: 'resolver' });
});

t.test('every spelling of loopback is refused before anything is dialled', async (t) => {
  const spellings = ['localhost.', 'LOCALHOST', 'app.localhost', '127.0.0.1.', '2130706433', '0x7f000001', '0x7f.1', '0177.0.0.1', '127.1', '0', '0.0.0.0', '[::]', '::127.0.0.1', '[::7f00:1]', '::ffff:127.0.0.1', '64:ff9b::127.0.0.1'];
  for (const host of spellings) {
    const r = await resolveTarget(host, 'auto', DEFAULT_POLICY);
    t.match(r, { ok: false, error_class: 'blocked' }, host);
  }
  t.match(await resolveTarget('localhost.', 'v6', { allow_private: true, allow_cidrs: [] }), { ok: true, address: '::1', family: 6 }, 'localhost names need no resolver');
  t.match(await resolveTarget('127.0.0.1.', 'auto', { allow_private: true, allow_cidrs: [] }), { ok: true, address: '127.0.0.1' }, 'a trailing dot is the same address');
});
