import type { FailureClass } from '@vantage/shared-protocol';
import { resolveTarget, type IpVersion } from '../resolve.js';
import type { TargetPolicy } from '../target-policy.js';
import { icmpChannel, type IcmpLease } from './channel.js';

/** A resolved target with a lease on its family's raw ICMP channel, or why not (`address` set when resolution worked). */
export type LeasedTarget =
  | { ok: true; address: string; family: 4 | 6; lease: IcmpLease }
  | { ok: false; address: string | null; error: string; error_class: FailureClass };

/**
 * Resolve `target` under `policy` (resolve.ts resolveTarget) and lease an identifier on the raw
 * ICMP channel of its family, as traceroute and mtr start. Never throws: a refused or unresolved
 * target keeps resolveTarget's class; no raw socket is `internal`, naming `probe` and the privilege.
 * The caller releases the lease.
 */
export async function resolveAndLease(target: string, ip_version: IpVersion, policy: TargetPolicy, probe: string): Promise<LeasedTarget> {
  const resolved = await resolveTarget(target.trim(), ip_version, policy);
  if (!resolved.ok) return { ok: false, address: null, error: resolved.error, error_class: resolved.error_class };
  const { address, family } = resolved;
  try {
    return { ok: true, address, family, lease: icmpChannel(family).lease() };
  } catch (err) {
    const error = `cannot open a raw ICMP${family === 6 ? 'v6' : ''} socket: ${(err as Error).message} (${probe} needs root or CAP_NET_RAW)`;
    return { ok: false, address, error, error_class: 'internal' };
  }
}
