import type { TopologySpec } from './topology.js';

/**
 * The standard routed test line (probe tests; reusable by end-to-end tests):
 *
 *   hostA ── router1 ── router2 (silent) ── hostB
 *   .1.2    .1.1  .2.1   .2.2      .3.1     .3.2      (198.18.x.y/24, fd00:7661:x::y/64)
 *
 * router2 forwards both ways but never answers with its own ICMP errors (no `*` workaround needs
 * iptables or nft): its main table has no route back to hostA's network, so a Time Exceeded it
 * generates has no route and is dropped, while packets forwarded from hostB's side are routed by
 * a policy rule (`ip rule iif <link to hostB> lookup 100`) whose table does have that route.
 * Locally generated packets never match an `iif` rule other than `lo`, see ip-rule(8).
 * A packet from hostA to hostB crosses two routers: hostB's replies arrive with TTL 64 − 2 = 62.
 */
export const LINE = {
  hostA: { v4: '198.18.1.2', v6: 'fd00:7661:1::2' },
  router1: { v4: '198.18.1.1', v6: 'fd00:7661:1::1', v4_far: '198.18.2.1', v6_far: 'fd00:7661:2::1' },
  router2: { v4: '198.18.2.2', v6: 'fd00:7661:2::2', v4_far: '198.18.3.1', v6_far: 'fd00:7661:3::1' },
  hostB: { v4: '198.18.3.2', v6: 'fd00:7661:3::2' },
  /** An address on hostB's network where no host answers (ARP fails at router2, which stays silent). */
  nobody: { v4: '198.18.3.99', v6: 'fd00:7661:3::99' },
  /** An address on the router1–router2 link where no host answers: router1's ARP fails (~3 s) and it sends Host Unreachable. */
  unreachable: { v4: '198.18.2.77' },
} as const;

/** The spec for createTopology(); router2's interface toward hostB is eth1 (second link it joins). */
export function routedLineSpec(): TopologySpec {
  return {
    nodes: { hostA: {}, router1: { router: true }, router2: { router: true }, hostB: {} },
    links: [
      { a: 'hostA', b: 'router1', a_addrs: ['198.18.1.2/24', 'fd00:7661:1::2/64'], b_addrs: ['198.18.1.1/24', 'fd00:7661:1::1/64'] },
      { a: 'router1', b: 'router2', a_addrs: ['198.18.2.1/24', 'fd00:7661:2::1/64'], b_addrs: ['198.18.2.2/24', 'fd00:7661:2::2/64'] },
      { a: 'router2', b: 'hostB', a_addrs: ['198.18.3.1/24', 'fd00:7661:3::1/64'], b_addrs: ['198.18.3.2/24', 'fd00:7661:3::2/64'] },
    ],
    routes: {
      hostA: ['default via 198.18.1.1', '-6 default via fd00:7661:1::1'],
      router1: ['198.18.3.0/24 via 198.18.2.2', '-6 fd00:7661:3::/64 via fd00:7661:2::2'],
      router2: ['198.18.1.0/24 via 198.18.2.1 table 100', '-6 fd00:7661:1::/64 via fd00:7661:2::1 table 100'],
      hostB: ['default via 198.18.3.1', '-6 default via fd00:7661:3::1'],
    },
    commands: {
      router2: ['ip rule add iif eth1 lookup 100 priority 100', 'ip -6 rule add iif eth1 lookup 100 priority 100'],
    },
  };
}
