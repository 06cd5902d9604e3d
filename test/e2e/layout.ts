import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Topology, TopologySpec } from '../netns/topology.js';
import type { AddressPlan } from './addresses.js';

/**
 * The namespaces, links and routes of `plan` for createTopology(): r1 and r2 (routers), the
 * targets host and agent hosts a0…; see docs/architecture/test-network.md for the picture.
 */
export function topologySpec(plan: AddressPlan): TopologySpec {
  const spec: TopologySpec = {
    nodes: { r1: { router: true }, r2: { router: true }, targets: {} },
    links: [],
    routes: {
      r1: [`198.19.1.0/24 via ${plan.r2_v4}`, `-6 fd00:7661:100::/64 via ${plan.r2_v6}`],
      r2: [`default via ${plan.r1_v4}`, `-6 default via ${plan.r1_v6}`],
      targets: [`default via ${plan.r2_targets_v4}`, `-6 default via ${plan.r2_targets_v6}`],
    },
  };
  plan.agents.forEach((a, i) => {
    spec.nodes[`a${i}`] = {};
    spec.links.push({ a: `a${i}`, b: 'r1', a_addrs: [`${a.v4}/24`, `${a.v6}/64`], b_addrs: [`${a.gateway_v4}/24`, `${a.gateway_v6}/64`] });
    spec.routes![`a${i}`] = [`default via ${a.gateway_v4}`, `-6 default via ${a.gateway_v6}`];
  });
  spec.links.push({ a: 'r1', b: 'r2', a_addrs: [`${plan.r1_v4}/24`, `${plan.r1_v6}/64`], b_addrs: [`${plan.r2_v4}/24`, `${plan.r2_v6}/64`] });
  spec.links.push({ a: 'r2', b: 'targets', a_addrs: [`${plan.r2_targets_v4}/24`, `${plan.r2_targets_v6}/64`], b_addrs: [`${plan.targets_v4}/24`, `${plan.targets_v6}/64`] });
  return spec;
}

/**
 * Link the root namespace to r1 (`up0` inside r1), route the slot's /20 (the agent subnets)
 * through it and give r1 its default route back. @returns the root-side interface name (deleted
 * with r1's namespace, or by the caller)
 */
export function linkRoot(topology: Topology, plan: AddressPlan): string {
  const root_if = `vte${randomBytes(4).toString('hex')}`;
  const ip = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  ip('link', 'add', root_if, 'type', 'veth', 'peer', 'name', 'up0', 'netns', topology.ns('r1'));
  ip('addr', 'add', `${plan.root_v4}/24`, 'dev', root_if);
  ip('link', 'set', root_if, 'up');
  ip('-n', topology.ns('r1'), 'addr', 'add', `${plan.r1_uplink_v4}/24`, 'dev', 'up0');
  ip('-n', topology.ns('r1'), 'link', 'set', 'up0', 'up');
  ip('route', 'add', plan.root_route_v4, 'via', plan.r1_uplink_v4, 'dev', root_if);
  ip('-n', topology.ns('r1'), 'route', 'add', 'default', 'via', plan.root_v4, 'dev', 'up0');
  return root_if;
}
