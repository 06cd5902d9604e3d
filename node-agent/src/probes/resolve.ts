import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { FailureClass } from '@vantage/shared-protocol';
import { compilePolicy, type TargetPolicy } from './target-policy.js';

export type IpVersion = 'v4' | 'v6' | 'auto';

/** A resolved, policy-checked address, or the reason there is none. */
export type Resolved =
  | { ok: true; address: string; family: 4 | 6 }
  | { ok: false; error: string; error_class: FailureClass };

const compiled = new WeakMap<TargetPolicy, ReturnType<typeof compilePolicy>>();

/** The policy predicate for `policy`, compiled once per policy object. */
export function policyCheck(policy: TargetPolicy): ReturnType<typeof compilePolicy> {
  let check = compiled.get(policy);
  if (!check) {
    check = compilePolicy(policy);
    compiled.set(policy, check);
  }
  return check;
}

/**
 * Resolve `host` (a name or a literal, IPv6 optionally in brackets) with the system resolver and
 * check the address against the node's policy *after* resolution, so a name pointing at a private
 * address is refused too (DESIGN.md target safety). `auto` prefers IPv4, like curl and Globalping.
 * Never throws: a failed lookup is `resolver`, a refused address is `blocked`.
 */
export async function resolveTarget(host: string, ip_version: IpVersion, policy: TargetPolicy): Promise<Resolved> {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  let address: string;
  let family: 4 | 6;
  const literal = isIP(bare);
  if (literal) {
    if ((ip_version === 'v4' && literal !== 4) || (ip_version === 'v6' && literal !== 6)) {
      return { ok: false, error: `${bare} is not an IP${ip_version} address`, error_class: 'target' };
    }
    address = bare;
    family = literal as 4 | 6;
  } else {
    try {
      const all = await lookup(bare, { all: true, family: ip_version === 'v4' ? 4 : ip_version === 'v6' ? 6 : 0 });
      const pick = ip_version === 'auto' ? (all.find((a) => a.family === 4) ?? all[0]) : all[0];
      if (!pick) return { ok: false, error: `no address for ${bare}`, error_class: 'resolver' };
      address = pick.address;
      family = pick.family as 4 | 6;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'ERROR';
      return { ok: false, error: `cannot resolve ${bare}: ${code}`, error_class: 'resolver' };
    }
  }
  const verdict = policyCheck(policy)(address);
  if (!verdict.allowed) {
    return { ok: false, error: `target ${bare} resolves to ${address} (${verdict.range}), which this node does not probe`, error_class: 'blocked' };
  }
  return { ok: true, address, family };
}
