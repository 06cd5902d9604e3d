import { PROBE_TYPES, type ProbeType } from '@vantage/shared-protocol';
import { openRawIcmp } from './icmp/raw.js';

/** Check types that need a raw ICMP socket: echo requests (ping) and reading ICMP errors (traceroute, and mtr in every mode; its TCP mode's raw TCP socket needs the same privilege). */
const RAW_ICMP_TYPES: readonly ProbeType[] = ['ping', 'traceroute', 'mtr'];

/** What this node can run, and why the rest is left out. */
export interface Capabilities {
  capabilities: ProbeType[];
  /** Types not advertised, with the reason (logged at start). */
  missing: { type: ProbeType; reason: string }[];
}

/**
 * Find out which check types this process can really run, so the node advertises only those in
 * `enroll`/`hello` and the control plane never selects it for the others. ping, traceroute and mtr
 * need a raw ICMP socket (root or CAP_NET_RAW): one is opened and closed at once to see.
 * @param openRaw the raw socket opener (tests pass one that fails)
 */
export function detectCapabilities(openRaw: (family: 4) => { close(): unknown } = openRawIcmp): Capabilities {
  let rawError: string | null = null;
  try {
    openRaw(4).close();
  } catch (err) {
    rawError = `no raw ICMP socket (${(err as Error).message}); ping, traceroute and mtr need root or CAP_NET_RAW`;
  }
  const missing = rawError ? RAW_ICMP_TYPES.map((type) => ({ type, reason: rawError })) : [];
  return { capabilities: PROBE_TYPES.filter((type) => !missing.some((m) => m.type === type)), missing };
}
