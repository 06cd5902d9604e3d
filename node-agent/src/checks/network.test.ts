/**
 * tcp, dns, ping and traceroute checks against real local servers and the loopback: expect
 * open/closed and banners, expected and wrong DNS answers and response codes, ping limits, and
 * traceroute's path_changed.
 */
import net from 'node:net';
import t from 'tap';
import { checkResultSchema } from '@vantage/shared-protocol';
import { createDnsProbe } from '../probes/dns.js';
import { startDnsServer } from '../probes/test-support/dns-server.js';
import { createPatternSandbox } from './assertions/sandbox.js';
import { createChecks } from './registry.js';
import { runCheckOnce } from './test-support/run.js';
import { pathChanged } from './traceroute.js';

t.test('network checks', async (t) => {
  const dnsServer = await startDnsServer();
  const sandbox = createPatternSandbox();
  const checks = createChecks({ sandbox, dns: createDnsProbe({ systemServer: async () => ({ address: '127.0.0.1', port: dnsServer.port }) }) });
  const banner = net.createServer((s) => {
    s.on('error', () => {});
    s.write('+OK ready\r\n');
    s.on('data', (d) => { if (d.toString().startsWith('PING')) s.write('+PONG\r\n'); });
  });
  await new Promise<void>((resolve) => banner.listen(0, '127.0.0.1', resolve));
  const port = (banner.address() as net.AddressInfo).port;
  t.teardown(async () => {
    await dnsServer.close();
    await new Promise<void>((resolve) => banner.close(() => resolve()));
    await sandbox.close();
  });

  t.test('tcp: open, closed, and the inverse expectation', async (t) => {
    const open = await runCheckOnce(checks, 'tcp', `127.0.0.1:${port}`);
    checkResultSchema.parse(open);
    t.equal(open.success, true);
    t.match(open.output, { state: 'open', expected: 'open', banner: null });
    const refused = await runCheckOnce(checks, 'tcp', '127.0.0.1:1');
    t.equal(refused.success, false);
    t.equal(refused.error_class, 'refused');
    const mustBeClosed = await runCheckOnce(checks, 'tcp', '127.0.0.1:1', { expect: 'closed' });
    t.equal(mustBeClosed.success, true, 'a refused port is what expect closed wants');
    const exposed = await runCheckOnce(checks, 'tcp', `127.0.0.1:${port}`, { expect: 'closed' });
    t.equal(exposed.success, false);
    t.equal(exposed.error, `port ${port} of 127.0.0.1 is open, expected closed`);
  });

  t.test('tcp: send and expect a banner', async (t) => {
    const pong = await runCheckOnce(checks, 'tcp', `127.0.0.1:${port}`, { send: 'PING\r\n', expect_banner: '+PONG' });
    checkResultSchema.parse(pong);
    t.equal(pong.success, true, pong.error ?? '');
    t.equal(pong.output!.banner_matched, true);
    t.match(pong.output!.banner, /\+PONG/);
    const greeting = await runCheckOnce(checks, 'tcp', `127.0.0.1:${port}`, { expect_banner: '+OK' });
    t.equal(greeting.success, true);
    const wrong = await runCheckOnce(checks, 'tcp', `127.0.0.1:${port}`, { expect_banner: 'SSH-2.0', timeout_ms: 1000 });
    t.equal(wrong.success, false);
    t.equal(wrong.error_class, 'assertion');
    t.match(wrong.error, /sent "\+OK ready\\r\\n", not "SSH-2\.0"/);
  });

  t.test('dns: expected answers (all, any), a wrong answer, expected rcode', async (t) => {
    const server = dnsServer.server;
    const all = await runCheckOnce(checks, 'dns', 'example.test', { server, expected_values: ['198.18.0.10', '198.18.0.11'] });
    checkResultSchema.parse(all);
    t.equal(all.success, true, all.error ?? '');
    t.same(all.output!.matched_values, ['198.18.0.10', '198.18.0.11']);
    const wrong = await runCheckOnce(checks, 'dns', 'example.test', { server, expected_values: ['198.18.0.10', '203.0.113.9'] });
    t.equal(wrong.success, false);
    t.equal(wrong.error_class, 'assertion');
    t.same(wrong.output!.missing_values, ['203.0.113.9']);
    t.match(wrong.error, /answered 198\.18\.0\.10, 198\.18\.0\.11; not 203\.0\.113\.9/);
    const any = await runCheckOnce(checks, 'dns', 'example.test', { server, expected_values: ['198.18.0.10', '203.0.113.9'], expected_match: 'any' });
    t.equal(any.success, true);
    const mx = await runCheckOnce(checks, 'dns', 'example.test', { server, record_type: 'MX', expected_values: ['10 MAIL.example.test.'] });
    t.equal(mx.success, true, `MX compared without case or trailing dot: ${mx.error}`);
    const txt = await runCheckOnce(checks, 'dns', 'example.test', { server, record_type: 'TXT', expected_values: ['v=spf1 -all'] });
    t.equal(txt.success, true, `TXT compared unquoted: ${txt.error}`);
    const nx = await runCheckOnce(checks, 'dns', 'nope.example.test', { server });
    t.equal(nx.success, false);
    t.match(nx.error, /NXDOMAIN .* expected NOERROR/);
    const mustNotExist = await runCheckOnce(checks, 'dns', 'nope.example.test', { server, expected_rcode: 'NXDOMAIN' });
    t.equal(mustNotExist.success, true);
    const viaSystem = await runCheckOnce(checks, 'dns', 'example.test', { expected_values: ['198.18.0.10'] });
    t.equal(viaSystem.success, true, 'the node resolver when no server is given');
  });

  t.test('ping: the loopback answers; limits decide', async (t) => {
    const r = await runCheckOnce(checks, 'ping', '127.0.0.1', { count: 3, interval_ms: 20 });
    checkResultSchema.parse(r);
    t.equal(r.success, true, r.error ?? '');
    t.equal(r.output!.packets_received, 3);
    const tooSlow = await runCheckOnce(checks, 'ping', '127.0.0.1', { count: 2, interval_ms: 20, max_avg_rtt_ms: 1 });
    t.ok(tooSlow.success || /exceeds max_avg_rtt_ms 1/.test(tooSlow.error ?? ''), 'either fast or reported against the limit');
    const unreachable = await runCheckOnce(checks, 'ping', '192.0.2.1', { count: 1, timeout_ms: 1000 }, { policy: { allow_private: false, allow_cidrs: [] } });
    t.equal(unreachable.error_class, 'blocked', 'the address policy still applies');
  });

  t.test('traceroute: the loopback is reached; path_changed from the second round on', async (t) => {
    const first = await runCheckOnce(checks, 'traceroute', '127.0.0.1', { max_hops: 3, probes_per_hop: 1 });
    checkResultSchema.parse(first);
    t.equal(first.success, true, first.error ?? '');
    t.equal(first.output!.path_changed, null, 'no previous round');
    const second = await runCheckOnce(checks, 'traceroute', '127.0.0.1', { max_hops: 3, probes_per_hop: 1 });
    t.equal(second.output!.path_changed, false);
  });

  t.test('path comparison', async (t) => {
    t.equal(pathChanged(['10.0.0.1', '10.0.1.1', '1.1.1.1'], ['10.0.0.1', '10.0.1.1', '1.1.1.1']), false);
    t.equal(pathChanged(['10.0.0.1', '10.0.1.1', '1.1.1.1'], ['10.0.0.1', '10.0.2.1', '1.1.1.1']), true, 'a hop answered from elsewhere');
    t.equal(pathChanged(['10.0.0.1', null, '1.1.1.1'], ['10.0.0.1', '10.0.2.1', '1.1.1.1']), false, 'a silent hop is no change');
    t.equal(pathChanged(['10.0.0.1', '1.1.1.1'], ['10.0.0.1', '10.0.1.1', '1.1.1.1']), true, 'one hop more');
  });
});
