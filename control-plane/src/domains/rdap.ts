/*
 * An RDAP domain look-up (RFC 9082 query, RFC 9083 response): registrar, expiration, name
 * servers and statuses of a domain from its registry's RDAP server.
 */

/** What a registry publishes about a domain, from RDAP or WHOIS. */
export interface DomainRegistration {
  registrar: string | null;
  expires_at: Date | null;
  name_servers: string[];
  statuses: string[];
}

/** Largest RDAP response read, bytes. */
const RDAP_MAX_BYTES = 1 << 20;

type Json = Record<string, unknown>;
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.filter((x): x is Json => typeof x === 'object' && x !== null) : []);

/** The `fn` (formatted name) of an RFC 7095 jCard, or null. */
function vcardName(entity: Json): string | null {
  const card = entity.vcardArray;
  if (!Array.isArray(card) || !Array.isArray(card[1])) return null;
  for (const prop of card[1] as unknown[]) {
    if (Array.isArray(prop) && prop[0] === 'fn' && typeof prop[3] === 'string' && prop[3].trim()) return prop[3].trim();
  }
  return null;
}

/**
 * Read an RFC 9083 domain object: the `expiration` event's date, the entity with role
 * `registrar` (its jCard `fn`, else its publicIds), the name servers' `ldhName` (lower-case, no
 * trailing dot) and `status`.
 */
export function parseRdapDomain(doc: Json): DomainRegistration {
  const expiration = list(doc.events).find((e) => e.eventAction === 'expiration');
  const date = typeof expiration?.eventDate === 'string' ? new Date(expiration.eventDate) : null;
  const registrar = list(doc.entities).find((e) => Array.isArray(e.roles) && e.roles.includes('registrar'));
  const name = registrar ? vcardName(registrar) ?? (list(registrar.publicIds)[0]?.identifier as string | undefined) ?? null : null;
  return {
    registrar: name,
    expires_at: date && !Number.isNaN(date.getTime()) ? date : null,
    name_servers: list(doc.nameservers).map((n) => String(n.ldhName ?? '').toLowerCase().replace(/\.$/, '')).filter(Boolean).slice(0, 50),
    statuses: (Array.isArray(doc.status) ? doc.status : []).filter((s): s is string => typeof s === 'string').slice(0, 50),
  };
}

/**
 * Look `domain` up at the RDAP base URL `base` (`<base>domain/<domain>`), within `timeout_ms`.
 * @throws with a one-line reason: not found (404), HTTP status, not RDAP JSON, too large, timeout
 */
export async function rdapLookup(base: string, domain: string, timeout_ms: number): Promise<DomainRegistration> {
  const url = new URL(`domain/${encodeURIComponent(domain)}`, base.endsWith('/') ? base : `${base}/`);
  const res = await fetch(url, { headers: { accept: 'application/rdap+json, application/json' }, signal: AbortSignal.timeout(timeout_ms), redirect: 'follow' });
  if (res.status === 404) throw new Error(`RDAP: ${domain} not found at ${base}`);
  if (!res.ok) throw new Error(`RDAP: HTTP ${res.status} from ${base}`);
  const text = await res.text();
  if (text.length > RDAP_MAX_BYTES) throw new Error(`RDAP: response over ${RDAP_MAX_BYTES} bytes`);
  let doc: unknown;
  try { doc = JSON.parse(text); } catch { throw new Error(`RDAP: not JSON from ${base}`); }
  if (typeof doc !== 'object' || doc === null || (doc as Json).objectClassName !== 'domain') throw new Error(`RDAP: not a domain object from ${base}`);
  return parseRdapDomain(doc as Json);
}
