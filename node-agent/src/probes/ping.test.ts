import t from 'tap';
import pino from 'pino';
import { pingOutputSchema, pingParamsSchema, type PingParams } from '@vantage/shared-protocol';
import { pingProbe, rttStats } from './ping.js';
import { DEFAULT_POLICY, type TargetPolicy } from './target-policy.js';
import { createTopology } from '../../../test/netns/topology.js';
import { LINE, routedLineSpec } from '../../../test/netns/routed-line.js';
import { startProbeWorker } from '../../../test/netns/probe-worker-client.js';

const log = pino({ level: 'silent' });
const ALLOW: TargetPolicy = { allow_private: true, allow_cidrs: [] };
const params = (p: Partial<PingParams> = {}): PingParams => pingParamsSchema.parse({ interval_ms: 20, timeout_ms: 2000, ...p });
const PING = { module: new URL('./ping.ts', import.meta.url).pathname, export: 'pingProbe' };

async function ping(target: string, p: Partial<PingParams> = {}, policy = ALLOW, signal = new AbortController().signal) {
  const outcome = await pingProbe.run(target, params(p), { signal, policy, log });
  pingOutputSchema.parse(outcome.output);
  return outcome;
}

t.test('rttStats matches iputils min/avg/max/mdev', async (t) => {
  // iputils printed "rtt min/avg/max/mdev = 0.062/0.236/0.410/0.174 ms" for these two replies.
  t.same(rttStats([0.41, 0.062]), { min: 0.062, avg: 0.236, max: 0.41, stddev: 0.174 });
  t.same(rttStats([1, 1, 1]), { min: 1, avg: 1, max: 1, stddev: 0 });
  t.same(rttStats([]), { min: null, avg: null, max: null, stddev: null });
});

t.test('loopback IPv4: every packet answered with rtt and ttl', async (t) => {
  const r = await ping('127.0.0.1', { count: 3 });
  t.equal(r.success, true, r.error ?? '');
  t.equal(r.output.resolved_address, '127.0.0.1');
  t.equal(r.output.packets_sent, 3);
  t.equal(r.output.packets_received, 3);
  t.equal(r.output.packet_loss, 0);
  t.same(r.output.packets.map((p) => p.seq), [1, 2, 3]);
  for (const p of r.output.packets) {
    t.equal(p.ttl, 64, 'loopback replies keep the default TTL');
    t.ok(p.rtt_ms !== null && p.rtt_ms >= 0);
  }
  t.ok(r.output.rtt_min_ms! <= r.output.rtt_avg_ms! && r.output.rtt_avg_ms! <= r.output.rtt_max_ms!);
});

t.test('loopback IPv6 (bracketed literal): answered, ttl unknown', async (t) => {
  const r = await ping('[::1]', { count: 2 });
  t.equal(r.success, true, r.error ?? '');
  t.equal(r.output.resolved_address, '::1');
  t.equal(r.output.packets_received, 2);
  t.same(r.output.packets.map((p) => p.ttl), [null, null]);
});

t.test('the default policy refuses loopback after resolution', async (t) => {
  const r = await ping('127.0.0.1', { count: 1 }, DEFAULT_POLICY);
  t.equal(r.success, false);
  t.equal(r.error_class, 'blocked');
  t.equal(r.output.packets_sent, 0, 'nothing was sent');
});

t.test('20 concurrent pings to one target each get exactly their own replies', async (t) => {
  const runs = await Promise.all(Array.from({ length: 20 }, () => ping('127.0.0.1', { count: 4, interval_ms: 10 })));
  for (const r of runs) {
    t.equal(r.output.packets_received, 4);
    t.same(r.output.packets.map((p) => p.seq), [1, 2, 3, 4]);
  }
});

t.test('an abort stops sending and returns what was measured', async (t) => {
  const controller = new AbortController();
  const started = ping('127.0.0.1', { count: 50, interval_ms: 200 }, ALLOW, controller.signal);
  setTimeout(() => controller.abort(), 300);
  const r = await started;
  t.ok(r.output.packets_sent >= 1 && r.output.packets_sent < 50, `sent ${r.output.packets_sent}`);
  t.equal(r.output.packets.length, r.output.packets_sent);
});

t.test('across the routed test network', async (t) => {
  const topo = await createTopology(routedLineSpec());
  t.teardown(() => topo.cleanup());
  const hostA = await startProbeWorker(topo, 'hostA');
  const run = (target: string, p: Partial<PingParams>) => hostA.run(PING, target, params(p), ALLOW);

  t.test('hostA → hostB over two routers: 3 of 3, ttl 62', async (t) => {
    const r = await run(LINE.hostB.v4, { count: 3 });
    pingOutputSchema.parse(r.output);
    t.equal(r.success, true, r.error ?? '');
    t.equal(r.output.packets_received, 3);
    t.same(r.output.packets.map((p: { ttl: number }) => p.ttl), [62, 62, 62]);
  });

  t.test('ICMPv6 hostA → hostB', async (t) => {
    const r = await run(LINE.hostB.v6, { count: 3 });
    t.equal(r.success, true, r.error ?? '');
    t.equal(r.output.resolved_address, LINE.hostB.v6);
    t.equal(r.output.packets_received, 3);
  });

  t.test('an address where no host answers: 100% loss, timeout', async (t) => {
    const r = await run(LINE.nobody.v4, { count: 2, timeout_ms: 1000 });
    t.equal(r.success, false);
    t.equal(r.error_class, 'timeout');
    t.equal(r.output.packets_sent, 2);
    t.equal(r.output.packets_received, 0);
    t.equal(r.output.packet_loss, 100);
    t.equal(r.output.rtt_avg_ms, null);
  });

  t.test('router1 answers Host Unreachable: failure class unreachable', async (t) => {
    const r = await run(LINE.unreachable.v4, { count: 1, timeout_ms: 10_000 });
    t.equal(r.success, false);
    t.equal(r.error_class, 'unreachable');
    t.match(r.error, LINE.router1.v4);
    t.equal(r.output.packets_received, 0);
  });

  t.test('concurrent pings in one process: same target, and a silent one beside them', async (t) => {
    const [a, b, silent] = await Promise.all([
      run(LINE.hostB.v4, { count: 5, interval_ms: 10 }),
      run(LINE.hostB.v4, { count: 5, interval_ms: 10 }),
      run(LINE.nobody.v4, { count: 5, interval_ms: 10, timeout_ms: 1000 }),
    ]);
    t.equal(a.output.packets_received, 5);
    t.equal(b.output.packets_received, 5);
    t.equal(silent.output.packets_received, 0, 'replies from hostB never count for another address');
  });
});
