import t from 'tap';
import pino from 'pino';
import { tracerouteOutputSchema, tracerouteParamsSchema, type TracerouteParams } from '@vantage/shared-protocol';
import { tracerouteProbe } from './traceroute.js';
import { DEFAULT_POLICY, type TargetPolicy } from './target-policy.js';
import { createTopology } from '../../../test/netns/topology.js';
import { LINE, routedLineSpec } from '../../../test/netns/routed-line.js';
import { startProbeWorker } from '../../../test/netns/probe-worker-client.js';

const log = pino({ level: 'silent' });
const ALLOW: TargetPolicy = { allow_private: true, allow_cidrs: [] };
const params = (p: Partial<TracerouteParams> = {}): TracerouteParams => tracerouteParamsSchema.parse({ timeout_ms: 2000, ...p });
const TRACEROUTE = { module: new URL('./traceroute.ts', import.meta.url).pathname, export: 'tracerouteProbe' };

t.test('loopback: the destination is hop 1', async (t) => {
  for (const protocol of ['icmp', 'udp'] as const) {
    const r = await tracerouteProbe.run('127.0.0.1', params({ protocol, probes_per_hop: 2 }), { signal: new AbortController().signal, policy: ALLOW, log });
    tracerouteOutputSchema.parse(r.output);
    t.equal(r.success, true, `${protocol}: ${r.error}`);
    t.equal(r.output.destination_reached, true);
    t.equal(r.output.hops.length, 1);
    t.equal(r.output.hops[0]!.address, '127.0.0.1');
    t.equal(r.output.hops[0]!.rtts_ms.length, 2);
  }
});

t.test('the default policy refuses loopback', async (t) => {
  const r = await tracerouteProbe.run('127.0.0.1', params(), { signal: new AbortController().signal, policy: DEFAULT_POLICY, log });
  t.equal(r.success, false);
  t.equal(r.error_class, 'blocked');
  t.same(r.output.hops, []);
});

t.test('across the routed test network (router2 silent)', async (t) => {
  const topo = await createTopology(routedLineSpec());
  t.teardown(() => topo.cleanup());
  const hostA = await startProbeWorker(topo, 'hostA');
  const run = (target: string, p: Partial<TracerouteParams>, abort_after_ms?: number) => hostA.run(TRACEROUTE, target, params(p), ALLOW, abort_after_ms);

  const cases = [
    { protocol: 'icmp', family: 'v4', target: LINE.hostB.v4, hop1: LINE.router1.v4 },
    { protocol: 'udp', family: 'v4', target: LINE.hostB.v4, hop1: LINE.router1.v4 },
    { protocol: 'icmp', family: 'v6', target: LINE.hostB.v6, hop1: LINE.router1.v6 },
    { protocol: 'udp', family: 'v6', target: LINE.hostB.v6, hop1: LINE.router1.v6 },
  ] as const;
  for (const c of cases) {
    t.test(`${c.protocol} over ${c.family}: router1, *, hostB`, async (t) => {
      const r = await run(c.target, { protocol: c.protocol, probes_per_hop: 3 });
      tracerouteOutputSchema.parse(r.output);
      t.equal(r.success, true, r.error ?? '');
      t.equal(r.output.protocol, c.protocol);
      t.equal(r.output.destination_reached, true);
      t.same(r.output.hops.map((h: { hop: number }) => h.hop), [1, 2, 3], 'stops at the destination');
      const [hop1, hop2, hop3] = r.output.hops;
      t.equal(hop1.address, c.hop1);
      t.equal(hop1.rtts_ms.filter((x: number | null) => x !== null).length, 3);
      t.same(hop2, { hop: 2, address: null, rtts_ms: [null, null, null] }, 'the silent router is *');
      t.equal(hop3.address, c.target);
    });
  }

  t.test('a destination that never answers: max_hops of hops, not reached', async (t) => {
    const r = await run(LINE.nobody.v4, { protocol: 'icmp', max_hops: 3, probes_per_hop: 1, timeout_ms: 1000 });
    t.equal(r.success, false);
    t.equal(r.error_class, 'unreachable');
    t.equal(r.output.destination_reached, false);
    t.same(r.output.hops.map((h: { address: string | null }) => h.address), [LINE.router1.v4, null, null]);
  });

  t.test('an abort returns the hops measured so far', async (t) => {
    const r = await run(LINE.nobody.v4, { protocol: 'udp', max_hops: 30, probes_per_hop: 1, timeout_ms: 1000 }, 2500);
    t.equal(r.success, false);
    t.ok(r.output.hops.length >= 1 && r.output.hops.length < 30, `${r.output.hops.length} hops`);
    t.equal(r.output.hops[0].address, LINE.router1.v4);
  });
});
