import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { LOCALHOST_ADDRESSES, canonicalHost, compileTargetPolicy, isLocalhostName, type AddressVerdict } from '@vantage/shared-protocol';

export type { AddressVerdict } from '@vantage/shared-protocol';

/**
 * The control plane's target rule before dispatch (docs/architecture/probes.md, target safety). The rule is
 * shared-protocol's probe/address-policy.ts, the one every node applies again to each address it
 * connects to: only public unicast passes (an IPv4-mapped or NAT64 address is judged by the IPv4
 * address inside, IPv4-compatible ::/96, 6to4 and Teredo are refused), unless the address is in
 * one of `allow_cidrs` (config `probe_allow_cidrs`, the deployment's allow-list).
 * @param allow_cidrs CIDR strings; throws on a malformed one (config is validated before this)
 * @returns a predicate over literal IPv4/IPv6 addresses (non-literals: `{allowed:false, range:'invalid'}`)
 */
export function compileAddressPolicy(allow_cidrs: string[]): (address: string) => AddressVerdict {
  return compileTargetPolicy({ allow_private: false, allow_cidrs });
}

/** Resolves a host name to its addresses; rejects (or resolves []) when it cannot. */
export type HostResolver = (host: string) => Promise<string[]>;

/** The system resolver's look-up did not answer within its bound. */
export class ResolveTimeout extends Error {
  constructor(host: string, timeout_ms: number) {
    super(`no answer for ${host} within ${timeout_ms} ms`);
    this.name = 'ResolveTimeout';
  }
}

/** Every address of a name, as dns/promises `lookup(host, { all: true })` gives them. */
export type LookupAll = (host: string) => Promise<{ address: string }[]>;

const lookupAll: LookupAll = (host) => lookup(host, { all: true, verbatim: true });

/**
 * The system resolver (getaddrinfo through dns/promises `lookup`, all families), bounded by
 * `timeout_ms`: rejects with the resolver's error, or ResolveTimeout past the bound.
 * @param look the look-up to bound (tests pass a slow one)
 */
export function systemResolver(timeout_ms = 3000, look: LookupAll = lookupAll): HostResolver {
  return async (host) => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => { timer = setTimeout(() => reject(new ResolveTimeout(host, timeout_ms)), timeout_ms); });
    try {
      const found = look(host).then((list) => list.map((a) => a.address));
      found.catch(() => undefined); // a late failure after the timeout must not go unhandled
      return await Promise.race([found, timeout]);
    } finally {
      clearTimeout(timer);
    }
  };
}

/** Why a host may not be probed: the refused address and its range, or `address: null` when it could not be resolved. */
export type BlockedHost = { address: string; range: string } | { address: null; range: 'unresolved'; reason: string };

/**
 * The first address of `host` that the policy refuses, or null when every address passes.
 * The host is judged in the form the system reads it (shared-protocol canonicalHost:
 * `127.0.0.1.`, `2130706433`, `0x7f.1`, `::127.0.0.1` are the addresses they spell);
 * `localhost` and `*.localhost` are 127.0.0.1 and ::1 without a look-up (RFC 6761 6.3).
 * Fails closed: a name that does not resolve, resolves to nothing, or takes longer than the
 * resolver's bound is blocked as `unresolved` (a node might resolve it differently, so it
 * cannot be shown to be public).
 */
export async function firstBlockedAddress(host: string, allowed: (address: string) => AddressVerdict, resolve: HostResolver): Promise<BlockedHost | null> {
  const canonical = canonicalHost(host);
  let addresses: string[];
  if (isIP(canonical)) addresses = [canonical];
  else if (isLocalhostName(canonical)) addresses = [...LOCALHOST_ADDRESSES];
  else {
    try {
      addresses = await resolve(canonical);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      return { address: null, range: 'unresolved', reason: err instanceof ResolveTimeout ? err.message : `cannot resolve ${canonical}${code ? ` (${code})` : ''}` };
    }
    if (addresses.length === 0) return { address: null, range: 'unresolved', reason: `no address for ${canonical}` };
  }
  for (const address of addresses) {
    const v = allowed(address);
    if (!v.allowed) return { address, range: v.range };
  }
  return null;
}
