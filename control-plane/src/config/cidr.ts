import ipaddr from 'ipaddr.js';
import { z } from 'zod';

/** True for a valid IPv4/IPv6 CIDR string (RFC 4632 / RFC 4291 prefix notation). */
function isCidr(value: string): boolean {
  try {
    ipaddr.parseCIDR(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * A list of CIDRs setting (`VANTAGE_PROBE_ALLOW_CIDRS`, `VANTAGE_DELIVERY_ALLOW_CIDRS`): each entry
 * must parse as a prefix, `example` shown in the error; empty by default.
 */
export function cidrListSchema(example: string) {
  return z.array(z.string().refine((c) => isCidr(c), `must be a CIDR such as ${example}`)).default([]);
}
