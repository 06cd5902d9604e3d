import t from 'tap';
import pino from 'pino';
import dgram from 'node:dgram';
import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { dnsOutputSchema, dnsParamsSchema, type DnsParams } from '@vantage/shared-protocol';
import { runCheckWith } from './check-run.js';
import { createDnsProbe, dnsProbe } from './dns.js';
import { ProbeInputError } from './input-error.js';
import { DEFAULT_POLICY, type TargetPolicy } from './target-policy.js';
import { createNetns } from './test-support/netns.js';
import { SPOOFED_ADDRESS, startDnsServer, type DnsTestServer } from './test-support/dns-server.js';
import type { Probe } from './types.js';

const log = pino({ level: 'silent' });
const ALLOW: TargetPolicy = { allow_private: true, allow_cidrs: [] };

async function server(t: { teardown(fn: () => unknown): void }, options: Parameters<typeof startDnsServer>[0] = {}): Promise<DnsTestServer> {
  const s = await startDnsServer(options);
  t.teardown(() => s.close());
  return s;
}

async function query(name: string, p: Partial<DnsParams>, opts: { policy?: TargetPolicy; signal?: AbortSignal; probe?: Probe<'dns'> } = {}) {
  const outcome = await (opts.probe ?? dnsProbe).run(name, dnsParamsSchema.parse(p), { signal: opts.signal ?? new AbortController().signal, policy: opts.policy ?? ALLOW, log });
  dnsOutputSchema.parse(outcome.output);
  return outcome;
}

const values = (records: { type: string; value: string }[], type?: string) => records.filter((r) => !type || r.type === type).map((r) => r.value);

t.test('every record type against a local server', async (t) => {
  const s = await server(t);
  const cases: [string, string, string[]][] = [
    ['A', 'example.test', ['198.18.0.10', '198.18.0.11']],
    ['AAAA', 'example.test', ['fd00:7661::10']],
    ['CNAME', 'www.example.test', ['example.test']],
    ['MX', 'example.test', ['10 mail.example.test', '20 backup.example.test']],
    ['TXT', 'example.test', ['"v=spf1 -all"', '"hello" "world \\"quoted\\""']],
    ['NS', 'example.test', ['ns1.example.test', 'ns2.example.test']],
    ['SOA', 'example.test', ['ns1.example.test hostmaster.example.test 2026112201 7200 3600 1209600 300']],
    ['CAA', 'example.test', ['0 issue "letsencrypt.org"']],
  ];
  for (const [type, name, want] of cases) {
    const r = await query(name, { record_type: type as DnsParams['record_type'], server: s.server });
    t.equal(r.success, true, `${type} succeeds`);
    t.equal(r.output.rcode, 'NOERROR');
    t.equal(r.output.protocol, 'udp');
    t.equal(r.output.server, s.server);
    t.type(r.output.query_ms, 'number');
    t.same(values(r.output.answers), want, `${type} values`);
    t.ok(r.output.answers.every((a) => a.type === type && a.ttl > 0 && a.name === name), `${type} records carry name, type, ttl`);
  }

  const any = await query('example.test', { record_type: 'ANY', server: s.server });
  t.same([...new Set(any.output.answers.map((a) => a.type))].sort(), ['A', 'AAAA', 'CAA', 'MX', 'NS', 'SOA', 'TXT']);

  const chased = await query('WWW.Example.Test.', { record_type: 'A', server: s.server });
  t.same(chased.output.answers.map((a) => `${a.type} ${a.value}`), ['CNAME example.test', 'A 198.18.0.10', 'A 198.18.0.11'], 'CNAME then its target; case and trailing dot accepted');
});

t.test('truncation and TCP', async (t) => {
  const s = await server(t);

  t.test('a reply larger than the advertised UDP size falls back to TCP', async (t) => {
    const before = { ...s.stats };
    const r = await query('big.example.test', { record_type: 'TXT', server: s.server });
    t.equal(r.success, true);
    t.equal(r.output.truncated, true);
    t.equal(r.output.protocol, 'tcp');
    t.equal(r.output.answers.length, 40);
    t.equal(s.stats.udp - before.udp, 1);
    t.equal(s.stats.tcp - before.tcp, 1);
  });

  t.test('a TC reply is retried over TCP even when small', async (t) => {
    const r = await query('tc.example.test', { server: s.server });
    t.equal(r.output.truncated, true);
    t.equal(r.output.protocol, 'tcp');
    t.same(values(r.output.answers), ['198.18.0.12']);
  });

  t.test('protocol tcp skips UDP', async (t) => {
    const before = { ...s.stats };
    const r = await query('example.test', { record_type: 'MX', protocol: 'tcp', server: s.server });
    t.equal(r.success, true);
    t.equal(r.output.protocol, 'tcp');
    t.equal(r.output.truncated, false);
    t.equal(values(r.output.answers).length, 2);
    t.equal(s.stats.udp - before.udp, 0);
    t.equal(s.stats.tcp - before.tcp, 1);
  });
});

t.test('rcodes', async (t) => {
  const s = await server(t);
  for (const [name, rcode] of [['nowhere.example.test', 'NXDOMAIN'], ['servfail.example.test', 'SERVFAIL'], ['refused.example.test', 'REFUSED']] as const) {
    for (const protocol of ['udp', 'tcp'] as const) {
      const r = await query(name, { server: s.server, protocol });
      t.equal(r.success, false, `${rcode} over ${protocol} fails`);
      t.equal(r.error_class, 'target');
      t.equal(r.output.rcode, rcode);
      t.match(r.error, rcode);
    }
  }
  const nx = await query('nowhere.example.test', { server: s.server });
  t.same(nx.output.authorities.map((a) => a.type), ['SOA'], 'NXDOMAIN carries the zone SOA');

  const nodata = await query('empty.example.test', { record_type: 'MX', server: s.server });
  t.equal(nodata.success, true, 'NOERROR with no answers is a success');
  t.same(nodata.output.answers, []);
  t.equal(nodata.output.authorities.length, 1);
});

t.test('forged replies are ignored', async (t) => {
  const s = await server(t);
  const r = await query('spoof.example.test', { server: s.server });
  t.equal(r.success, true);
  t.same(values(r.output.answers), ['198.18.0.14'], `never ${SPOOFED_ADDRESS}`);
});

t.test('no reply', async (t) => {
  const s = await server(t);
  for (const protocol of ['udp', 'tcp'] as const) {
    const r = await query('silent.example.test', { server: s.server, protocol, timeout_ms: 1000 });
    t.equal(r.success, false);
    t.equal(r.error_class, 'timeout', `silent over ${protocol}`);
    t.equal(r.output.rcode, null);
    t.equal(r.output.query_ms, null);
  }

  const quiet = await server(t, { silent: true });
  const controller = new AbortController();
  const pending = query('example.test', { server: quiet.server, timeout_ms: 30000 }, { signal: controller.signal });
  controller.abort();
  const aborted = await pending;
  t.equal(aborted.success, false, 'ctx.signal ends the wait long before timeout_ms');

  const run = await runCheckWith({ dns: dnsProbe }, { type: 'dns', target: 'example.test', params: dnsParamsSchema.parse({ server: quiet.server, timeout_ms: 30000 }) }, { timeout_ms: 300, policy: ALLOW, log });
  t.equal(run.error_class, 'timeout', 'the runner timeout applies');
  t.equal(run.type === 'dns' ? run.output?.server : null, quiet.server, 'partial output kept');
});

t.test('a closed UDP port is refused (ICMP port unreachable)', async (t) => {
  const sock = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => sock.bind(0, '127.0.0.1', () => resolve()));
  const port = sock.address().port;
  await new Promise<void>((resolve) => sock.close(() => resolve()));
  const r = await query('example.test', { server: `127.0.0.1:${port}`, timeout_ms: 5000 });
  t.equal(r.error_class, 'refused');
});

t.test('server addresses and the node policy', async (t) => {
  const s = await server(t);
  const blocked = await query('example.test', { server: s.server }, { policy: DEFAULT_POLICY });
  t.equal(blocked.success, false);
  t.equal(blocked.error_class, 'blocked', 'a private resolver is refused by default');
  t.equal(s.stats.udp, 0, 'nothing was sent');

  const listed = await query('example.test', { server: s.server }, { policy: { allow_private: false, allow_cidrs: ['127.0.0.0/8'] } });
  t.equal(listed.success, true, 'an allow-listed CIDR is queried');

  const byName = await query('example.test', { server: `localhost:${s.port}` });
  t.equal(byName.success, true, 'a server name is resolved with the system resolver');
  t.match(byName.output.server, /:\d+$/);

  const v6 = await server(t, { host: '::1' });
  const r6 = await query('example.test', { record_type: 'AAAA', server: v6.server });
  t.equal(r6.success, true);
  t.equal(r6.output.server, `[::1]:${v6.port}`);

  const unresolvable = await query('example.test', { server: 'no-such-host.invalid' });
  t.equal(unresolvable.error_class, 'resolver');
});

t.test('the system resolver is used without params.server, and is policy exempt', async (t) => {
  const s = await server(t);
  const probe = createDnsProbe({ systemServer: async () => ({ address: '127.0.0.1', port: s.port }) });
  const r = await query('example.test', {}, { probe, policy: DEFAULT_POLICY });
  t.equal(r.success, true);
  t.equal(r.output.server, s.server);
});

t.test('unusable input is a ProbeInputError', async (t) => {
  await t.rejects(query(`${'a'.repeat(64)}.test`, {}), ProbeInputError);
  await t.rejects(query('a..b', {}), ProbeInputError);
  await t.rejects(dnsProbe.run('example.test', { ...dnsParamsSchema.parse({}), server: 'host:99999' }, { signal: new AbortController().signal, policy: ALLOW, log }), ProbeInputError);
  const run = await runCheckWith({ dns: dnsProbe }, { type: 'dns', target: 'bad..name', params: dnsParamsSchema.parse({}) }, { timeout_ms: 2000, policy: ALLOW, log });
  t.equal(run.error_class, 'rejected');
});

t.test('the default probe reads /etc/resolv.conf (inside a namespace with its own resolv.conf)', async (t) => {
  // `ip netns exec` bind-mounts /etc/netns/<name>/resolv.conf over /etc/resolv.conf (ip-netns(8)),
  // so the real default path is exercised against a server on 127.0.0.1:53 in that namespace.
  const ns = await createNetns('dns');
  t.teardown(() => ns.remove());
  const etc = `/etc/netns/${ns.name}`;
  await mkdir(etc, { recursive: true });
  t.teardown(() => rm(etc, { recursive: true, force: true }));
  await writeFile(`${etc}/resolv.conf`, '# test\nnameserver 127.0.0.1\n');
  const url = (p: string) => JSON.stringify(new URL(p, import.meta.url).href);
  const script = `
    const { startDnsServer } = await import(${url('./test-support/dns-server.ts')});
    const { dnsProbe } = await import(${url('./dns.ts')});
    const { dnsParamsSchema } = await import('@vantage/shared-protocol');
    const pino = (await import('pino')).default;
    const s = await startDnsServer({ port: 53 });
    const ctx = { signal: new AbortController().signal, policy: { allow_private: false, allow_cidrs: [] }, log: pino({ level: 'silent' }) };
    const r = await dnsProbe.run('example.test', dnsParamsSchema.parse({ record_type: 'NS' }), ctx);
    await s.close();
    process.stdout.write(JSON.stringify(r));`;
  const cwd = fileURLToPath(new URL('../../', import.meta.url));
  const { stdout } = await promisify(execFile)('ip', ['netns', 'exec', ns.name, process.execPath, '--import', 'tsx', '--input-type=module', '-e', script], { cwd, timeout: 60_000 });
  const r = JSON.parse(stdout) as Awaited<ReturnType<typeof query>>;
  t.equal(r.success, true);
  t.equal(r.output.server, '127.0.0.1:53', 'the first nameserver, port 53, reported');
  t.same(values(r.output.answers), ['ns1.example.test', 'ns2.example.test']);
});
