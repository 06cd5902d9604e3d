import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { LOCALHOST_ADDRESSES, canonicalHost, isLocalhostName, type FailureClass } from '@vantage/shared-protocol';
import { compilePolicy, type TargetPolicy } from './target-policy.js';

export type IpVersion = 'v4' | 'v6' | 'auto';

/**
 * A resolved, policy-checked address, or the reason there is none. `looked_up` is false when no
 * resolver was asked (an IP literal, or a localhost name, loopback by rule): there was no
 * resolution to time, so an HTTP probe's dns_ms is 0 (as curl's namelookup time is for a literal).
 */
export type Resolved =
  | { ok: true; address: string; family: 4 | 6; looked_up: boolean }
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

/** The candidate addresses of `host` without a resolver (a literal as itself, a localhost name by rule); null when a look-up is needed. */
function addressesByRule(host: string, family: 0 | 4 | 6): { address: string; family: number }[] | null {
  const literal = isIP(host);
  if (literal) return [{ address: host, family: literal }];
  // RFC 6761 6.3: loopback by definition; a resolver may not know `localhost.` and answer anything.
  if (isLocalhostName(host)) return LOCALHOST_ADDRESSES.map((address) => ({ address, family: isIP(address) })).filter((a) => family === 0 || a.family === family);
  return null;
}

/**
 * Resolve `host` (a name or a literal, IPv6 optionally in brackets) once and check the address
 * against `policy` *after* resolution, so a name pointing at a private address is refused like
 * the literal (docs/architecture/probes.md, target safety). The caller connects to the returned address only, never
 * to the name again (no second lookup a rebinding resolver could answer differently).
 * The host is first put in the form the system would read it (shared-protocol canonicalHost:
 * `127.0.0.1.`, `2130706433`, `0x7f.1` → 127.0.0.1); `localhost` and `*.localhost` are loopback
 * without a lookup. `auto` prefers IPv4, like curl and Globalping.
 * Never throws: a failed lookup is `resolver`, a refused address is `blocked`, an IP literal of
 * the wrong family for `ip_version` is `target`. `looked_up` says whether the system resolver was asked.
 */
export async function resolveTarget(host: string, ip_version: IpVersion, policy: TargetPolicy): Promise<Resolved> {
  const bare = canonicalHost(host.trim());
  const literal = isIP(bare);
  if (literal && ((ip_version === 'v4' && literal !== 4) || (ip_version === 'v6' && literal !== 6))) {
    return { ok: false, error: `${bare} is not an IP${ip_version} address`, error_class: 'target' };
  }
  let address: string;
  let family: 4 | 6;
  const wanted = ip_version === 'v4' ? 4 : ip_version === 'v6' ? 6 : 0;
  const byRule = addressesByRule(bare, wanted);
  try {
    const all = byRule ?? await lookup(bare, { all: true, family: wanted });
    const pick = ip_version === 'auto' ? (all.find((a) => a.family === 4) ?? all[0]) : all[0];
    if (!pick) return { ok: false, error: `no address for ${bare}`, error_class: 'resolver' };
    address = pick.address;
    family = pick.family as 4 | 6;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'ERROR';
    return { ok: false, error: `cannot resolve ${bare}: ${code}`, error_class: 'resolver' };
  }
  const verdict = policyCheck(policy)(address);
  if (!verdict.allowed) {
    const what = bare === address ? `target ${address}` : `target ${bare} resolves to ${address}`;
    return { ok: false, error: `${what} (${verdict.range}), which this check may not reach`, error_class: 'blocked' };
  }
  return { ok: true, address, family, looked_up: byRule === null };
}
