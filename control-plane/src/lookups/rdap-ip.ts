import { readFileSync } from 'node:fs';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import type { OutboundConnector } from '../delivery/connector.js';
import { list, rdapFetch, registryError, vcardName, type Json } from './rdap.js';

/*
 * RDAP for IP addresses (RFC 9082 3.1.1 query `ip/<address>`, RFC 9083 5.4 IP network object),
 * with the RFC 9224 bootstrap registries for the IPv4 and IPv6 address spaces (IANA's ipv4.json and
 * ipv6.json: which Regional Internet Registry serves which prefix).
 */

const bootstrapSchema = z.object({
  version: z.string(),
  services: z.array(z.tuple([z.array(z.string()), z.array(z.string().url())])),
});

/** One bootstrap entry: a prefix and its RDAP base URLs (ending in `/`, https first). */
export interface IpBootstrapEntry {
  prefix: [ipaddr.IPv4 | ipaddr.IPv6, number];
  bases: string[];
}

/**
 * Parse RFC 9224 JSON text of an IP address space (entries are CIDR prefixes such as `41.0.0.0/8`
 * or `2c00::/12`). Several files (IPv4 and IPv6) go into one list.
 * @throws when the text does not have the registry's shape or an entry is not a prefix
 */
export function parseIpBootstrap(texts: string[]): IpBootstrapEntry[] {
  const out: IpBootstrapEntry[] = [];
  for (const text of texts) {
    for (const [prefixes, urls] of bootstrapSchema.parse(JSON.parse(text)).services) {
      const bases = [...urls].sort((a, b) => Number(b.startsWith('https:')) - Number(a.startsWith('https:'))).map((u) => (u.endsWith('/') ? u : `${u}/`));
      for (const p of prefixes) out.push({ prefix: ipaddr.parseCIDR(p), bases });
    }
  }
  // Longest prefix first (RFC 9224 section 5.1: the most specific match wins).
  return out.sort((a, b) => b.prefix[1] - a.prefix[1]);
}

/** Read bootstrap files (IANA ipv4.json / ipv6.json). @throws when one is unreadable or malformed */
export function loadIpBootstrap(files: string[]): IpBootstrapEntry[] {
  return parseIpBootstrap(files.map((f) => readFileSync(f, 'utf8')));
}

/** RDAP base URLs for `ip` from the bootstrap (the longest matching prefix), else `fallback`. */
export function rdapServersForIp(bootstrap: IpBootstrapEntry[], ip: string, fallback: string[]): string[] {
  const addr = ipaddr.process(ip);
  for (const e of bootstrap) {
    if (e.prefix[0].kind() === addr.kind() && addr.match(e.prefix as [typeof addr, number])) return e.bases;
  }
  return fallback;
}

/** What an RIR publishes about the network holding an address (RFC 9083 5.4). */
export interface IpNetworkRegistration {
  handle: string | null;
  name: string | null;
  start_address: string | null;
  end_address: string | null;
  /** CIDR prefixes of the network (the `cidr0_cidrs` extension, else computed from the range when it is one prefix). */
  cidrs: string[];
  country: string | null;
  /** The holder: the jCard `fn` of the entity with role `registrant` (else `administrative`). */
  organisation: string | null;
  /** The WHOIS server the RIR names (`port43`): which registry answered. */
  port43: string | null;
  statuses: string[];
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);

/** Read an RFC 9083 IP network object. */
export function parseRdapIpNetwork(doc: Json): IpNetworkRegistration {
  const entities = list(doc.entities);
  const holder = ['registrant', 'administrative'].map((role) => entities.find((e) => Array.isArray(e.roles) && e.roles.includes(role))).find(Boolean);
  const cidr0 = list(doc.cidr0_cidrs).map((c) => {
    const prefix = str(c.v4prefix) ?? str(c.v6prefix);
    return prefix && typeof c.length === 'number' ? `${prefix}/${c.length}` : null;
  }).filter((c): c is string => c !== null);
  const start = str(doc.startAddress);
  const end = str(doc.endAddress);
  return {
    handle: str(doc.handle), name: str(doc.name), start_address: start, end_address: end,
    cidrs: cidr0.length > 0 ? cidr0.slice(0, 20) : rangeCidr(start, end),
    country: str(doc.country), organisation: holder ? vcardName(holder) : null, port43: str(doc.port43),
    statuses: (Array.isArray(doc.status) ? doc.status : []).filter((s): s is string => typeof s === 'string').slice(0, 50),
  };
}

/** The one prefix a range spans exactly, as `[cidr]`, else `[]`. */
function rangeCidr(start: string | null, end: string | null): string[] {
  if (!start || !end || !ipaddr.isValid(start) || !ipaddr.isValid(end)) return [];
  const a = ipaddr.parse(start).toByteArray();
  const b = ipaddr.parse(end).toByteArray();
  if (a.length !== b.length) return [];
  let bits = 0;
  for (let i = 0; i < a.length * 8; i++) {
    const x = (a[i >> 3]! >> (7 - (i & 7))) & 1;
    const y = (b[i >> 3]! >> (7 - (i & 7))) & 1;
    if (x === y && bits === i) bits++;
    else if (x !== 0 || y !== 1) return [];
  }
  return [`${start}/${bits}`];
}

/**
 * Look `ip` up at the RDAP base URL `base` (`<base>ip/<ip>`) with rdapFetch (redirects to the
 * responsible RIR followed, RFC 7480 5.2). @throws as rdapFetch, and when the answer is not an IP network object
 */
export async function rdapIpLookup(connector: OutboundConnector, base: string, ip: string, timeout_ms: number, signal?: AbortSignal): Promise<IpNetworkRegistration> {
  const doc = await rdapFetch(connector, base, `ip/${encodeURIComponent(ip)}`, timeout_ms, signal);
  if (doc.objectClassName !== 'ip network') throw registryError(`RDAP: not an IP network object from ${base}`, 'error');
  return parseRdapIpNetwork(doc);
}
