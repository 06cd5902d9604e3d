import net from 'node:net';
import t from 'tap';
import pino from 'pino';
import { mtrOutputSchema, mtrParamsSchema, type MtrParams } from '@vantage/shared-protocol';
import { mtrProbe } from './mtr.js';
import { HopStats } from './mtr-stats.js';
import { DEFAULT_POLICY, type TargetPolicy } from './target-policy.js';
import { createTopology } from '../../../test/netns/topology.js';
import { LINE, routedLineSpec } from '../../../test/netns/routed-line.js';
import { startProbeWorker } from '../../../test/netns/probe-worker-client.js';

const log = pino({ level: 'silent' });
const ALLOW: TargetPolicy = { allow_private: true, allow_cidrs: [] };
const params = (p: Partial<MtrParams> = {}): MtrParams => mtrParamsSchema.parse({ interval_ms: 100, timeout_ms: 1000, hostnames: false, ...p });
const MTR = { module: new URL('./mtr.ts', import.meta.url).pathname, export: 'mtrProbe' };

t.test('hop statistics as mtr computes them', async (t) => {
  const h = new HopStats(3);
  for (const rtt of [10, null, 20, 30, null]) h.add(rtt === null ? null : '198.18.3.2', rtt);
  const r = h.report(null, null);
  t.same(r, { hop: 3, address: '198.18.3.2', hostname: null, asn: null, loss_pct: 40, sent: 5, received: 3, last_ms: 30, avg_ms: 20, best_ms: 10, worst_ms: 30, stdev_ms: 10 });
  const silent = new HopStats(2);
  silent.add(null, null);
  t.same(silent.report(null, null), { hop: 2, address: null, hostname: null, asn: null, loss_pct: 100, sent: 1, received: 0, last_ms: null, avg_ms: null, best_ms: null, worst_ms: null, stdev_ms: null });
});

t.test('loopback: one hop, every round answered', async (t) => {
  for (const protocol of ['icmp', 'udp'] as const) {
    const r = await mtrProbe.run('127.0.0.1', params({ protocol, count: 3 }), { signal: new AbortController().signal, policy: ALLOW, log });
    mtrOutputSchema.parse(r.output);
    t.equal(r.success, true, `${protocol}: ${r.error}`);
    t.equal(r.output.rounds, 3);
    t.equal(r.output.hops.length, 1);
    t.match(r.output.hops[0], { hop: 1, address: '127.0.0.1', sent: 3, received: 3, loss_pct: 0 });
  }
});

t.test('loopback, TCP mode: the SYN-ACK of an open port and the RST of a closed one', async (t) => {
  let accepted = 0;
  const server = net.createServer((s) => { accepted++; s.destroy(); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const open = (server.address() as net.AddressInfo).port;
  const closed = await new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => { const { port } = s.address() as net.AddressInfo; s.close(() => resolve(port)); });
  });
  for (const port of [open, closed]) {
    const r = await mtrProbe.run('127.0.0.1', params({ protocol: 'tcp', port, count: 3 }), { signal: new AbortController().signal, policy: ALLOW, log });
    mtrOutputSchema.parse(r.output);
    t.equal(r.success, true, `port ${port}: ${r.error}`);
    t.equal(r.output.protocol, 'tcp');
    t.same(r.output.hops.map((h) => [h.hop, h.address, h.sent, h.received]), [[1, '127.0.0.1', 3, 3]], `port ${port}`);
  }
  t.equal(accepted, 0, 'no connection was completed: the kernel answers the SYN-ACK with a RST');
});

t.test('the default policy refuses loopback', async (t) => {
  const r = await mtrProbe.run('127.0.0.1', params(), { signal: new AbortController().signal, policy: DEFAULT_POLICY, log });
  t.equal(r.error_class, 'blocked');
  t.equal(r.output.rounds, 0);
});

t.test('across the routed test network: router1, a silent router2, hostB', async (t) => {
  const topo = await createTopology(routedLineSpec());
  t.teardown(() => topo.cleanup());
  const hostA = await startProbeWorker(topo, 'hostA');
  for (const c of [
    { protocol: 'icmp', target: LINE.hostB.v4, hop1: LINE.router1.v4 },
    { protocol: 'udp', target: LINE.hostB.v4, hop1: LINE.router1.v4 },
    { protocol: 'icmp', target: LINE.hostB.v6, hop1: LINE.router1.v6 },
    { protocol: 'tcp', target: LINE.hostB.v4, hop1: LINE.router1.v4 },
    { protocol: 'tcp', target: LINE.hostB.v6, hop1: LINE.router1.v6 },
  ] as const) {
    // TCP mode: hostB listens on no port, so its kernel answers every SYN that reaches it with a RST.
    const r = await hostA.run(MTR, c.target, params({ protocol: c.protocol, count: 4, hostnames: true, ...(c.protocol === 'tcp' ? { port: 443 } : {}) }), ALLOW);
    mtrOutputSchema.parse(r.output);
    t.equal(r.success, true, `${c.protocol} ${c.target}: ${r.error}`);
    t.equal(r.output.rounds, 4);
    t.same(r.output.hops.map((h: { address: string | null }) => h.address), [c.hop1, null, c.target]);
    t.match(r.output.hops[0], { sent: 4, received: 4, loss_pct: 0 });
    t.match(r.output.hops[1], { sent: 4, received: 0, loss_pct: 100, avg_ms: null });
    t.match(r.output.hops[2], { sent: 4, received: 4, loss_pct: 0, hostname: null });
  }
  const none = await hostA.run(MTR, LINE.nobody.v4, params({ count: 2, max_hops: 4, timeout_ms: 300 }), ALLOW);
  t.equal(none.success, false);
  t.equal(none.error_class, 'unreachable');
  t.same(none.output.hops.map((h: { address: string | null }) => h.address), [LINE.router1.v4], 'trailing silent hops are left out');
});

t.test('a lossy hop: router1 rate-limits its Time Exceeded messages', async (t) => {
  const spec = routedLineSpec();
  // RFC 1812 4.3.2.8 rate limiting, Linux's per-destination token bucket: one ICMP error per 2 s
  // toward hostA once the initial burst is spent, so at 10 rounds a second most of hop 1's probes go unanswered.
  spec.commands = { ...spec.commands, router1: ['sysctl -qw net.ipv4.icmp_ratelimit=2000'] };
  const topo = await createTopology(spec);
  t.teardown(() => topo.cleanup());
  const hostA = await startProbeWorker(topo, 'hostA');
  const r = await hostA.run(MTR, LINE.hostB.v4, params({ count: 20, interval_ms: 100, timeout_ms: 500 }), ALLOW);
  mtrOutputSchema.parse(r.output);
  t.equal(r.success, true, r.error ?? '');
  const [hop1, , hop3] = r.output.hops;
  t.comment(`hop 1: ${hop1.received}/${hop1.sent} answered, loss ${hop1.loss_pct} %`);
  t.equal(hop1.address, LINE.router1.v4);
  t.equal(hop1.sent, 20);
  t.ok(hop1.loss_pct > 0 && hop1.loss_pct < 100, `hop 1 loses some probes (${hop1.loss_pct} %)`);
  t.match(hop3, { address: LINE.hostB.v4, sent: 20, received: 20, loss_pct: 0 }, 'echo replies are not rate-limited');
});
