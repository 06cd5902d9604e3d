/**
 * Provider of a node (docs/api/nodes.md directory field): the declared Chinese carrier when the enrollment
 * token names one (docs/api/nodes.md `operator`), else a short slug for well-known networks by ASN, else
 * the ASN organisation name as GeoIP gives it. Null when nothing is known.
 */
const BY_ASN: ReadonlyMap<number, string> = new Map([
  [16509, 'aws'], [14618, 'aws'], [15169, 'gcp'], [396982, 'gcp'], [8075, 'azure'], [13335, 'cloudflare'],
  [14061, 'digitalocean'], [24940, 'hetzner'], [16276, 'ovh'], [63949, 'akamai'], [20940, 'akamai'],
  [20473, 'vultr'], [31898, 'oracle'], [37963, 'alibaba'], [45102, 'alibaba'], [45090, 'tencent'],
  [132203, 'tencent'], [4134, 'chinatelecom'], [4809, 'chinatelecom'], [4837, 'chinaunicom'],
  [9929, 'chinaunicom'], [9808, 'chinamobile'], [56040, 'chinamobile'], [58453, 'chinamobile'],
]);

/**
 * @param operator declared operator of the token (`chinatelecom`, `chinaunicom`, `chinamobile`, `other`) or null
 * @param asn      ASN from the offline ASN database, or null
 * @param org      ASN organisation, or null
 */
export function providerOf(operator: string | null, asn: number | null, org: string | null): string | null {
  if (operator && operator !== 'other') return operator;
  if (asn !== null && BY_ASN.has(asn)) return BY_ASN.get(asn)!;
  return org;
}
