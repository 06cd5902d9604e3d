import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';

/*
 * Which addresses a probe may reach (docs/api/probes.md "Target safety"). One rule for both sides:
 * the control plane judges every host before dispatch, the node judges every address it is about
 * to connect to (after its own resolution, on every redirect hop). Only public unicast passes
 * unless a policy opens more.
 */

type Ip = ipaddr.IPv4 | ipaddr.IPv6;

/** Allowed, or refused with the name of the range the address is in (`loopback`, `private`, …). */
export type AddressVerdict = { allowed: true } | { allowed: false; range: string };

/** True for an IPv4 or IPv6 CIDR such as `198.18.0.0/15` or `fd00:7661::/32`. */
export function isCidr(text: string): boolean {
  try {
    ipaddr.parseCIDR(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * A target policy: which non-public addresses may be probed on top of public unicast.
 * `allow_private` opens every address; `allow_cidrs` opens the listed ranges.
 * @example { "allow_private": false, "allow_cidrs": ["198.18.0.0/15"] }
 */
export const targetPolicySchema = z.strictObject({
  allow_private: z.boolean(),
  allow_cidrs: z.array(z.string().max(64).refine(isCidr, 'must be a CIDR such as 198.18.0.0/15')).max(100).default([]),
});
export type TargetPolicy = z.infer<typeof targetPolicySchema>;

/** Public unicast addresses only: the policy of anyone who is not the node's owner. */
export const PUBLIC_ONLY: TargetPolicy = Object.freeze({ allow_private: false, allow_cidrs: [] as string[] }) as TargetPolicy;

/**
 * Parse an IP literal: dotted-quad IPv4, or IPv6 (optionally in brackets, an embedded dotted quad
 * allowed). IPv6 goes through the WHATWG URL parser first, because ipaddr.js reads `::a.b.c.d`
 * (IPv4-compatible, ::/96) as if it were IPv4-mapped. Zone ids (`fe80::1%eth0`) and anything else
 * give null.
 */
export function parseIpLiteral(text: string): Ip | null {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const family = isIP(bare);
  if (family === 4) return ipaddr.IPv4.parse(bare);
  if (family !== 6) return null;
  let host: string;
  try {
    host = new URL(`http://[${bare}]/`).hostname;
  } catch {
    return null;
  }
  return ipaddr.IPv6.parse(host.slice(1, -1));
}

/** The IPv4 address inside an IPv4-mapped (::ffff:0:0/96) or NAT64 well-known-prefix (64:ff9b::/96, RFC 6052) address. */
function embeddedIpv4(ip: ipaddr.IPv6): { v4: ipaddr.IPv4; how: 'mapped' | 'nat64' } | null {
  const p = ip.parts;
  const v4 = () => new ipaddr.IPv4([p[6]! >> 8, p[6]! & 0xff, p[7]! >> 8, p[7]! & 0xff]);
  if (p[0] === 0 && p[1] === 0 && p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0xffff) return { v4: v4(), how: 'mapped' };
  if (p[0] === 0x64 && p[1] === 0xff9b && p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0) return { v4: v4(), how: 'nat64' };
  return null;
}

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3') as [ipaddr.IPv6, number];

/**
 * The range of `ip`, `public` for public unicast. IPv4: ipaddr.js's range (`unicast` → public).
 * IPv6: an IPv4-mapped or NAT64 (64:ff9b::/96) address is judged as its embedded IPv4 address;
 * the rest of ::/96 (IPv4-compatible, deprecated by RFC 4291 2.5.5.1) is `ipv4Compatible`;
 * 6to4, Teredo, ULA, link-local, documentation and the other special ranges keep ipaddr.js's name;
 * anything outside 2000::/3 (the only global unicast space IANA allocates) is `reserved`.
 */
export function addressRange(ip: Ip): string {
  if (ip.kind() === 'ipv4') {
    const range = ip.range();
    return range === 'unicast' ? 'public' : range;
  }
  const v6 = ip as ipaddr.IPv6;
  const embedded = embeddedIpv4(v6);
  if (embedded) return addressRange(embedded.v4);
  const p = v6.parts;
  if (p.slice(0, 6).every((x) => x === 0) && (p[6] !== 0 || p[7]! > 1)) return 'ipv4Compatible';
  const range = v6.range();
  if (range !== 'unicast') return range;
  return v6.match(GLOBAL_UNICAST_V6) ? 'public' : 'reserved';
}

/**
 * Compile `policy` into a predicate over IP literals (throws on a malformed CIDR, so bad
 * configuration fails at start-up). Public unicast is always allowed; with `allow_private`
 * everything parsable is; otherwise a non-public address must fall in one of `allow_cidrs`
 * (an IPv4-mapped or NAT64 address also matches through its embedded IPv4 address).
 * Unparsable text is refused as `invalid`.
 * @example compileTargetPolicy({ allow_private: false, allow_cidrs: ['198.18.0.0/15'] })('127.0.0.1') // { allowed: false, range: 'loopback' }
 */
export function compileTargetPolicy(policy: TargetPolicy): (address: string) => AddressVerdict {
  const cidrs = policy.allow_cidrs.map((c) => {
    try {
      return ipaddr.parseCIDR(c);
    } catch {
      throw new Error(`invalid CIDR in allow list: ${c}`);
    }
  });
  const inList = (ip: Ip) => cidrs.some(([net, bits]) => net.kind() === ip.kind() && ip.match(net as never, bits));
  return (address) => {
    const ip = parseIpLiteral(address);
    if (!ip) return { allowed: false, range: 'invalid' };
    const range = addressRange(ip);
    if (range === 'public' || policy.allow_private || inList(ip)) return { allowed: true };
    const embedded = ip.kind() === 'ipv6' ? embeddedIpv4(ip as ipaddr.IPv6) : null;
    if (embedded && inList(embedded.v4)) return { allowed: true };
    return { allowed: false, range };
  };
}

/** The narrower of two CIDRs when one contains the other, else null (disjoint or different families). */
function narrower(a: [Ip, number], b: [Ip, number]): [Ip, number] | null {
  if (a[0].kind() !== b[0].kind()) return null;
  if (a[1] <= b[1] && b[0].match(a as never)) return b;
  if (b[1] <= a[1] && a[0].match(b as never)) return a;
  return null;
}

/**
 * The policy allowing exactly what both `a` and `b` allow: how a node combines its operator's
 * policy with the requester's policy carried by a task (a private address is probed only when
 * the node's operator allows it AND the requester may reach it).
 */
export function intersectPolicies(a: TargetPolicy, b: TargetPolicy): TargetPolicy {
  if (a.allow_private && b.allow_private) return { allow_private: true, allow_cidrs: [] };
  if (a.allow_private) return { allow_private: false, allow_cidrs: [...b.allow_cidrs] };
  if (b.allow_private) return { allow_private: false, allow_cidrs: [...a.allow_cidrs] };
  const out = new Set<string>();
  for (const x of a.allow_cidrs) {
    for (const y of b.allow_cidrs) {
      const both = narrower(ipaddr.parseCIDR(x), ipaddr.parseCIDR(y));
      if (both) out.add(`${both[0].toString()}/${both[1]}`);
    }
  }
  return { allow_private: false, allow_cidrs: [...out] };
}

/**
 * True for `localhost` and names under `.localhost`, in any case, with or without trailing dots:
 * RFC 6761 6.3 makes them loopback by definition, so they are judged as 127.0.0.1 and ::1
 * without asking a resolver (which may not know `localhost.` and say nothing, or say anything).
 */
export function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.+$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/** The addresses a localhost name stands for (RFC 6761 6.3). */
export const LOCALHOST_ADDRESSES = ['127.0.0.1', '::1'] as const;

/**
 * The host a probe will look up, in the form the WHATWG URL parser gives it: brackets removed,
 * IPv6 compressed (`::127.0.0.1` → `::7f00:1`), an IPv4 address written any way inet_aton(3)
 * accepts (`2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1`, a trailing dot) turned into its dotted
 * quad, names lower-cased. So both sides judge the address the system would really connect to.
 * Text that is not a plain host (`@`, `/`, `:` outside IPv6, spaces…) is returned unchanged.
 */
export function canonicalHost(host: string): string {
  const ip = parseIpLiteral(host);
  if (ip) return ip.toString();
  if (!/^[A-Za-z0-9._-]+$/.test(host)) return host;
  try {
    const canonical = new URL(`http://${host}/`).hostname;
    return isIP(canonical) === 4 ? canonical : host.toLowerCase();
  } catch {
    return host;
  }
}
