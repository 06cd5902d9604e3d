import ipaddr from 'ipaddr.js';
import type { Config } from '../config/index.js';
import type { Logger } from '../log.js';
import { sharedGeoLocator, type GeoLocator } from '../nodes/geo/geoip.js';

/**
 * The offline GeoLite2 city + ASN locator (nodes/geo/geoip.ts) for the configured data folders,
 * the one the process shares (sharedGeoLocator), so every lookup route uses the loaded tables
 * (≈45 MB of mmdb buffers, loaded on first use).
 */
export function lookupGeo(config: Pick<Config, 'geoip_city_dir' | 'geoip_asn_dir'>, log?: Logger): GeoLocator {
  return sharedGeoLocator(config, log);
}

const REGION_NAMES = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

/** English name of an ISO 3166-1 alpha-2 code (`GB` → `United Kingdom`, from ICU's CLDR data), or null. */
export function countryName(code: string | null): string | null {
  if (!code) return null;
  try {
    return REGION_NAMES.of(code) ?? null;
  } catch {
    return null;
  }
}

/**
 * Why an address has no location, or null when it is globally routable unicast: the IANA
 * special-purpose registry range ipaddr.js names (`private`, `loopback`, `linkLocal`,
 * `uniqueLocal`, `carrierGradeNat`, `reserved`, `benchmarking`...; RFC 6890).
 */
export function specialRange(ip: string): string | null {
  let addr = ipaddr.parse(ip);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
  const range = addr.range();
  return range === 'unicast' ? null : range;
}
