import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/** Why an address may not be probed: ipaddr.js's range name (`loopback`, `private`, `benchmarking` …). */
export type AddressVerdict = { allowed: true } | { allowed: false; range: string };

/**
 * The control plane's target rule (DESIGN.md target safety; the node applies the same rule again
 * after its own resolution, node-agent/src/probes/target-policy.ts). Only ipaddr.js range
 * `unicast` is public; private, loopback, link-local, unique-local, carrier-grade NAT,
 * multicast, the benchmarking range 198.18.0.0/15 (ipaddr.js calls it reserved), unspecified and reserved ranges are refused unless the
 * address is inside one of `allow_cidrs` (config `probe_allow_cidrs`). IPv4-mapped IPv6 addresses
 * are judged as their IPv4 address.
 * @param allow_cidrs CIDR strings; throws on a malformed one (config is validated before this)
 * @returns a predicate over literal IPv4/IPv6 addresses (non-literals: `{allowed:false, range:'invalid'}`)
 */
export function compileAddressPolicy(allow_cidrs: string[]): (address: string) => AddressVerdict {
  const cidrs = allow_cidrs.map((c) => ipaddr.parseCIDR(c));
  return (address) => {
    if (!ipaddr.isValid(address)) return { allowed: false, range: 'invalid' };
    let ip = ipaddr.parse(address);
    if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
    const range = ip.range();
    if (range === 'unicast') return { allowed: true };
    for (const [net, bits] of cidrs) {
      if (net.kind() === ip.kind() && ip.match(net as never, bits)) return { allowed: true };
    }
    return { allowed: false, range };
  };
}

/** Resolves a host name to its addresses; [] when it does not resolve. */
export type HostResolver = (host: string) => Promise<string[]>;

/**
 * The system resolver (getaddrinfo through dns/promises `lookup`, all families), bounded by
 * `timeout_ms`. Names that fail or take too long resolve to [] (the node reports them itself).
 */
export function systemResolver(timeout_ms = 3000): HostResolver {
  return async (host) => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<string[]>((resolve) => { timer = setTimeout(() => resolve([]), timeout_ms); });
    try {
      const found = lookup(host, { all: true, verbatim: true }).then((list) => list.map((a) => a.address), () => []);
      return await Promise.race([found, timeout]);
    } finally {
      clearTimeout(timer);
    }
  };
}

/** The first address of `host` (a literal or a name) that the policy refuses, or null. */
export async function firstBlockedAddress(
  host: string, allowed: (address: string) => AddressVerdict, resolve: HostResolver,
): Promise<{ address: string; range: string } | null> {
  const addresses = ipaddr.isValid(host) ? [host] : await resolve(host);
  for (const address of addresses) {
    const v = allowed(address);
    if (!v.allowed) return { address, range: v.range };
  }
  return null;
}
