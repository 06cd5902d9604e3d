import type { MtrOutput, ResultEnvelope } from '@vantage/shared-protocol';
import type { GeoLocator } from '../nodes/geo/geoip.js';

/**
 * `output` with each mtr hop's `asn` set from the offline ASN ranges of `geo` (nodes/geo/geoip.ts,
 * @ip-location-db/asn; docs/api/probes.md "mtr"): the AS number of the range holding the hop's
 * address, null for an unanswered hop (`???`), a private, loopback or other special-purpose
 * address (RFC 6890; the locator looks up globally routable unicast only) or an address no range
 * holds. Whatever the node put in `asn` is replaced. Never throws.
 */
export async function withHopAsns(output: MtrOutput, geo: GeoLocator): Promise<MtrOutput> {
  const asns = await Promise.all(output.hops.map(async (h) => (h.address ? (await geo.lookup(h.address)).asn : null)));
  return { ...output, hops: output.hops.map((h, i) => ({ ...h, asn: asns[i] ?? null })) };
}

/**
 * The node results of a batch with their mtr hops' ASNs filled in ({@link withHopAsns}); results
 * of other types come back as they are, and a batch without mtr results is returned as is,
 * synchronously, with no look-up (monitor batches, the usual ingest).
 */
export function fillMtrAsns(results: ResultEnvelope[], geo: GeoLocator): ResultEnvelope[] | Promise<ResultEnvelope[]> {
  if (!results.some((r) => r.type === 'mtr' && r.output)) return results;
  return Promise.all(results.map(async (r) => (r.type === 'mtr' && r.output ? { ...r, output: await withHopAsns(r.output as MtrOutput, geo) } as ResultEnvelope : r)));
}
