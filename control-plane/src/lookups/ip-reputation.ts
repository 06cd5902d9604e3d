import type { IpReputation, REPUTATION_SIGNALS } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import type { Logger } from '../log.js';
import type { GeoLocator } from '../nodes/geo/geoip.js';
import { specialRange } from './geo.js';
import { addressFiles, ListFile, parseAddressList, parseAsnList, SHIPPED_ABUSE_ASNS, SHIPPED_HOSTING_ASNS, type AddressSet } from './reputation-lists.js';

type Signal = (typeof REPUTATION_SIGNALS)[number];

/**
 * Weight of each evidence signal (docs/api/lookups.md "IP reputation"): the score is their sum,
 * capped at 100. A Tor exit alone is high risk; a VPN or proxy exit medium; an abusive network
 * medium; a hosting network alone low (servers are not suspicious by themselves).
 */
export const SIGNAL_WEIGHTS: Readonly<Record<Signal, number>> = { tor_exit: 70, proxy: 45, vpn: 35, abuse_asn: 40, hosting: 20 };

/** `risk_level` from the score: low below 30, medium 30-69, high from 70. */
export function riskLevel(score: number): IpReputation['risk_level'] {
  return score >= 70 ? 'high' : score >= 30 ? 'medium' : 'low';
}

/** The evidence lists, each re-read when its file changes (reputation-lists.ts). */
export interface ReputationLists {
  tor(): Promise<AddressSet>;
  vpn(): Promise<AddressSet[]>;
  proxy(): Promise<AddressSet[]>;
  hosting_asns(): Promise<Set<number>>;
  abuse_asns(): Promise<Set<number>>;
}

/** The lists the configuration names (docs/operators/configuration.md, `VANTAGE_REPUTATION_*`), or the shipped ASN lists. */
export function reputationLists(config: Pick<Config, 'reputation_tor_exit_file' | 'reputation_vpn_files' | 'reputation_proxy_files' | 'reputation_hosting_asn_file' | 'reputation_abuse_asn_file'>, log?: Logger): ReputationLists {
  const none = parseAddressList('');
  const tor = config.reputation_tor_exit_file ? new ListFile(config.reputation_tor_exit_file, parseAddressList, none, log) : null;
  const hosting = new ListFile(config.reputation_hosting_asn_file ?? SHIPPED_HOSTING_ASNS, parseAsnList, new Set<number>(), log);
  const abuse = new ListFile(config.reputation_abuse_asn_file ?? SHIPPED_ABUSE_ASNS, parseAsnList, new Set<number>(), log);
  return {
    tor: async () => (tor ? tor.get() : none),
    vpn: addressFiles(config.reputation_vpn_files, log),
    proxy: addressFiles(config.reputation_proxy_files, log),
    hosting_asns: () => hosting.get(),
    abuse_asns: () => abuse.get(),
  };
}

/**
 * Reputation of one address (docs/api/lookups.md "IP reputation"): the evidence the lists give
 * (Tor exit list; VPN and proxy lists, a VPN listing taking precedence so the two never appear
 * together; the AS from the ASN data on the hosting or abuse ASN list), `score` the sum of their
 * {@link SIGNAL_WEIGHTS} capped at 100, `types[]` (`residential` for a routable address in an
 * AS that is on no list and no anonymiser list), location and AS from the GeoLite2/ASN data.
 */
export async function ipReputation(geo: GeoLocator, lists: ReputationLists, ip: string): Promise<IpReputation> {
  const special = specialRange(ip);
  const facts = special ? { country: null, city: null, asn: null, isp: null } : await geo.lookup(ip);
  const evidence: IpReputation['evidence'] = [];
  const types: IpReputation['types'] = [];
  const add = (signal: Signal, description: string) => evidence.push({ signal, description, weight: SIGNAL_WEIGHTS[signal] });
  if (!special) {
    const [tor, vpn, proxy, hosting, abuse] = await Promise.all([lists.tor(), lists.vpn(), lists.proxy(), lists.hosting_asns(), lists.abuse_asns()]);
    if (tor.has(ip)) { add('tor_exit', `${ip} is on the Tor exit list`); types.push('tor'); }
    if (vpn.some((l) => l.has(ip))) { add('vpn', `${ip} is on a VPN exit list`); types.push('vpn'); }
    else if (proxy.some((l) => l.has(ip))) { add('proxy', `${ip} is on a proxy list`); types.push('proxy'); }
    if (facts.asn !== null && abuse.has(facts.asn)) add('abuse_asn', `AS${facts.asn} (${facts.isp ?? 'unknown'}) is on the abuse ASN list`);
    if (facts.asn !== null && hosting.has(facts.asn)) { add('hosting', `AS${facts.asn} (${facts.isp ?? 'unknown'}) is a hosting network`); types.push('hosting'); }
    if (types.length === 0 && facts.asn !== null) types.push('residential');
  }
  const score = Math.min(100, evidence.reduce((sum, e) => sum + e.weight, 0));
  return {
    ip, score, risk_level: riskLevel(score), types, evidence,
    country: facts.country, city: facts.city, asn: facts.asn === null ? null : `AS${facts.asn}`, isp: facts.isp,
  };
}
