import ipaddr from 'ipaddr.js';

/**
 * The node's rule for which addresses it may probe (DESIGN.md target safety; issue 4 item 6).
 * Public unicast addresses are always allowed. Private, loopback, link-local, unique-local,
 * carrier-grade NAT, benchmarking, multicast and reserved ranges are refused unless `allow_private`
 * is set or the address falls in one of `allow_cidrs`.
 */
export interface TargetPolicy {
  allow_private: boolean;
  /** CIDR strings such as `198.18.0.0/15` or `fd00:7661::/48`. */
  allow_cidrs: string[];
}

export const DEFAULT_POLICY: TargetPolicy = { allow_private: false, allow_cidrs: [] };

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

/**
 * Parse the policy's CIDRs once; throws on a malformed CIDR so bad config fails at start-up.
 * @returns a predicate telling whether `address` (a literal IPv4/IPv6) may be probed, and why not.
 */
export function compilePolicy(policy: TargetPolicy): (address: string) => { allowed: true } | { allowed: false; range: string } {
  const cidrs: Cidr[] = policy.allow_cidrs.map((c) => {
    try {
      return ipaddr.parseCIDR(c);
    } catch {
      throw new Error(`invalid CIDR in allow list: ${c}`);
    }
  });
  return (address) => {
    let ip = ipaddr.parse(address);
    if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
    const range = ip.range();
    if (range === 'unicast') return { allowed: true };
    if (policy.allow_private) return { allowed: true };
    for (const [net, bits] of cidrs) {
      if (net.kind() === ip.kind() && ip.match(net as never, bits)) return { allowed: true };
    }
    return { allowed: false, range };
  };
}
