import type { IpInfo } from '@vantage/shared-protocol';
import type { GeoLocator } from '../nodes/geo/geoip.js';
import { countryName, specialRange } from './geo.js';

/**
 * IP info of docs/api/lookups.md "IP info" for an IPv4 or IPv6 literal (already validated):
 * country, region and city from the GeoLite2 city data, `asn` and `org`/`isp` from the ASN
 * ranges, `country_name` in English. A private or reserved address (RFC 6890) answers with empty
 * fields and a `note` naming its range; a public address absent from both data sets gets a note too.
 */
export async function ipInfo(geo: GeoLocator, ip: string): Promise<IpInfo> {
  const range = specialRange(ip);
  if (range) {
    return { ip, country: null, country_name: null, region: null, city: null, asn: null, org: null, isp: null, note: `${ip} is in a special-purpose range (${range}): not routed on the Internet, so it has no location or network owner` };
  }
  const facts = await geo.lookup(ip);
  const info: IpInfo = {
    ip,
    country: facts.country,
    country_name: countryName(facts.country),
    region: facts.region,
    city: facts.city,
    asn: facts.asn,
    org: facts.isp,
    isp: facts.isp,
  };
  if (facts.country === null && facts.asn === null) info.note = `${ip} is not listed in the GeoLite2 city or ASN data`;
  return info;
}
