import { isIP } from 'node:net';
import { LOCALHOST_ADDRESSES, canonicalHost, isLocalhostName } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import { compileAddressPolicy, systemResolver, type AddressVerdict, type HostResolver } from '../probes/address-policy.js';

/**
 * Which addresses the control plane may connect to (webhooks, alert channels, registry look-ups:
 * every outbound connection, made through connector.ts): the probe target rule (public unicast
 * only; private, loopback, link-local, reserved… refused) opened by the operator's CIDR lists
 * `probe_allow_cidrs` and `delivery_allow_cidrs` (docs/architecture/delivery.md "Address policy").
 */
export interface OutboundPolicy {
  allowed(address: string): AddressVerdict;
  resolve: HostResolver;
}

/** The setting an operator uses to open a private range to outbound connections (config `delivery_allow_cidrs`, read as VANTAGE_<FIELD>). */
export const OUTBOUND_ALLOW_SETTING = `VANTAGE_${('delivery_allow_cidrs' satisfies keyof Config).toUpperCase()}`;

/** The policy of this deployment (config read once in main.ts). @param resolve override for tests */
export function createOutboundPolicy(config: Pick<Config, 'probe_allow_cidrs' | 'delivery_allow_cidrs'>, resolve: HostResolver = systemResolver()): OutboundPolicy {
  return { allowed: compileAddressPolicy([...config.probe_allow_cidrs, ...config.delivery_allow_cidrs]), resolve };
}

/** The addresses of a host (canonical form), every one allowed; or why not. */
export type HostCheck =
  | { ok: true; addresses: string[] }
  | { ok: false; refused: true; reason: string; setting: string }
  | { ok: false; refused: false; reason: string };

/**
 * Resolve `host` (a URL's hostname: IPv6 in brackets, any inet_aton spelling of IPv4) and judge
 * every address it has: refused when any is, so a name with one public and one private address
 * cannot be used to reach the private one. `localhost` names are loopback without a lookup
 * (RFC 6761 6.3). A name that does not resolve is `refused: false` (it may resolve later).
 * A refusal's reason names the address, its range and {@link OUTBOUND_ALLOW_SETTING}, also given as `setting`.
 */
export async function checkHost(host: string, policy: OutboundPolicy): Promise<HostCheck> {
  const bare = canonicalHost(host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host);
  let addresses: string[];
  if (isIP(bare)) addresses = [bare];
  else if (isLocalhostName(bare)) addresses = [...LOCALHOST_ADDRESSES];
  else {
    try {
      addresses = await policy.resolve(bare);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      return { ok: false, refused: false, reason: `${bare} does not resolve${code ? ` (${code})` : ''}` };
    }
  }
  if (addresses.length === 0) return { ok: false, refused: false, reason: `${bare} does not resolve` };
  for (const address of addresses) {
    const v = policy.allowed(address);
    if (!v.allowed) {
      const what = address === bare ? address : `${bare} resolves to ${address}`;
      return { ok: false, refused: true, setting: OUTBOUND_ALLOW_SETTING, reason: `${what}, a ${v.range} address, which the control plane does not connect to (the operator can open a range with ${OUTBOUND_ALLOW_SETTING})` };
    }
  }
  return { ok: true, addresses };
}

/** Why an outbound URL is refused, and the setting that would open it (null when none would: a bad URL, a name that does not resolve). */
export interface OutboundUrlRefusal {
  reason: string;
  setting: string | null;
}

/**
 * Check an outbound URL before it is stored (webhook endpoint and alert channel create/update):
 * http or https, and a host whose every address the policy allows. It is checked again at every
 * connection (connector.ts), because DNS answers change.
 * @returns null when allowed, else the refusal: its reason (for the error message and
 *   `details.fields`) and its setting (for `details.setting`: docs/api/webhooks.md)
 */
export async function refuseOutboundUrl(url: string, policy: OutboundPolicy): Promise<OutboundUrlRefusal | null> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { reason: 'not a valid URL', setting: null };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return { reason: 'only http and https URLs are allowed', setting: null };
  const check = await checkHost(parsed.hostname, policy);
  if (check.ok) return null;
  return { reason: check.reason, setting: check.refused ? check.setting : null };
}

/** The error `details` of a refused outbound URL in `path`: `fields`, and `setting` when one opens it. */
export function refusalDetails(path: string, refusal: OutboundUrlRefusal): Record<string, unknown> {
  return { fields: [{ path, message: refusal.reason }], ...(refusal.setting ? { setting: refusal.setting } : {}) };
}
