/**
 * rbl against a local DNS block list serving a test zone: a listed address with its reason, a
 * clean one, a host name's addresses, IPv6 names, and a list that refuses the resolver.
 */
import t from 'tap';
import { checkResultSchema } from '@vantage/shared-protocol';
import { createChecks } from './registry.js';
import { classifyCode, rblQueryName } from './rbl.js';
import { startDnsblServer } from './test-support/dnsbl-server.js';
import { runCheckOnce } from './test-support/run.js';

t.test('rbl', async (t) => {
  const bl = await startDnsblServer({ listed: { '127.0.0.2': { code: '127.0.0.2', reason: 'listed for spam, see https://bl.test/127.0.0.2' } } });
  const other = await startDnsblServer({ zone: 'other.test', listed: {} });
  const refusing = await startDnsblServer({ zone: 'strict.test', listed: {}, refusing: true });
  t.teardown(() => Promise.all([bl.close(), other.close(), refusing.close()]));
  const checks = createChecks();

  t.test('a listed address is down with the zone and its TXT reason', async (t) => {
    const r = await runCheckOnce(checks, 'rbl', '127.0.0.2', { zones: ['bl.test'], server: bl.server });
    checkResultSchema.parse(r);
    t.equal(r.success, false);
    t.equal(r.error_class, 'target');
    t.equal(r.error, 'listed: 127.0.0.2 in bl.test (127.0.0.2; listed for spam, see https://bl.test/127.0.0.2)');
    t.same(r.output!.listings, [{ address: '127.0.0.2', zone: 'bl.test', listed: true, codes: ['127.0.0.2'], reasons: ['listed for spam, see https://bl.test/127.0.0.2'], error: null }]);
    t.equal(r.output!.listed_count, 1);
  });

  t.test('a clean address is up; a host name is checked by its addresses', async (t) => {
    const clean = await runCheckOnce(checks, 'rbl', '127.0.0.9', { zones: ['bl.test'], server: bl.server });
    t.equal(clean.success, true, clean.error ?? '');
    t.same(clean.output!.listings[0], { address: '127.0.0.9', zone: 'bl.test', listed: false, codes: [], reasons: [], error: null });
    const host = await runCheckOnce(checks, 'rbl', 'localhost', { zones: ['bl.test'], server: bl.server });
    t.ok(host.output!.addresses.includes('127.0.0.1'));
    t.equal(host.success, true);
  });

  t.test('a list that refuses the resolver is an error, not a listing', async (t) => {
    const r = await runCheckOnce(checks, 'rbl', '127.0.0.2', { zones: ['strict.test'], server: refusing.server });
    t.equal(r.success, false);
    t.equal(r.error_class, 'resolver');
    t.match(r.output!.listings[0], { listed: null, error: /refused the query \(127\.255\.255\.254\)/ });
  });

  t.test('a server the policy refuses is down (blocked) before any query: the rule the control plane applies at save', async (t) => {
    const before = bl.queries;
    const r = await runCheckOnce(checks, 'rbl', '127.0.0.2', { zones: ['bl.test', 'other.test'], server: bl.server }, { policy: { allow_private: false, allow_cidrs: [] } });
    checkResultSchema.parse(r);
    t.match(r, { success: false, error_class: 'blocked', error: 'DNS server target 127.0.0.1 (loopback), which this check may not reach' });
    t.same(r.output!.listings, [], 'nothing looked up');
    t.equal(bl.queries, before, 'the server got no query');
    const opened = await runCheckOnce(checks, 'rbl', '127.0.0.9', { zones: ['bl.test'], server: bl.server }, { policy: { allow_private: false, allow_cidrs: ['127.0.0.0/8'] } });
    t.equal(opened.success, true, 'allowed by an allow-list CIDR');
  });

  t.test('query names and codes (RFC 5782)', async (t) => {
    t.equal(rblQueryName('192.0.2.99', 'bl.test'), '99.2.0.192.bl.test');
    t.equal(rblQueryName('2001:db8::1', 'bl.test'), '1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.bl.test');
    t.equal(classifyCode('127.0.0.4'), 'listed');
    t.equal(classifyCode('127.255.255.252'), 'refused');
    t.equal(classifyCode('198.51.100.1'), 'other');
  });
});
