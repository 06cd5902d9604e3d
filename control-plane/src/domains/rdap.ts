import { interceptors, request } from 'undici';
import { explainFailure, type OutboundConnector } from '../delivery/connector.js';

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

/** Redirects an RDAP look-up follows (RFC 7480 5.2: servers redirect to another RDAP server), each hop a connection the policy judges. */
const RDAP_MAX_REDIRECTS = 3;

/** A one-line reason for a failed exchange with `base`: the policy's refusal, a timeout, or the error's code and message. */
function failure(err: unknown, base: string, timeout_ms: number): Error {
  const f = explainFailure(err);
  if (f.kind === 'refused') return new Error(`RDAP: ${f.text}`);
  if (f.kind === 'timeout' || f.kind === 'aborted') return new Error(`RDAP: no answer from ${base} within ${timeout_ms} ms`);
  return new Error(`RDAP: ${base}: ${f.text}`);
}

/**
 * Look `domain` up at the RDAP base URL `base` (`<base>domain/<domain>`) through `connector`
 * (every connection, redirect hops included, under the outbound address policy), within
 * `timeout_ms` (and `signal`), following at most RDAP_MAX_REDIRECTS redirects, reading at most
 * RDAP_MAX_BYTES.
 * @throws with a one-line reason starting `RDAP: `: the policy's refusal, not found (404), HTTP
 *   status, not RDAP JSON, too large, timeout, connection error
 */
export async function rdapLookup(connector: OutboundConnector, base: string, domain: string, timeout_ms: number, signal?: AbortSignal): Promise<DomainRegistration> {
  const url = new URL(`domain/${encodeURIComponent(domain)}`, base.endsWith('/') ? base : `${base}/`);
  let status: number;
  let text: string;
  try {
    const res = await request(url, {
      dispatcher: connector.dispatcher.compose(interceptors.redirect({ maxRedirections: RDAP_MAX_REDIRECTS })),
      headers: { accept: 'application/rdap+json, application/json' },
      signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(timeout_ms)]) : AbortSignal.timeout(timeout_ms),
      headersTimeout: timeout_ms, bodyTimeout: timeout_ms,
    });
    status = res.statusCode;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > RDAP_MAX_BYTES) {
        res.body.destroy();
        throw new Error(`RDAP: response from ${base} over ${RDAP_MAX_BYTES} bytes`);
      }
      chunks.push(chunk);
    }
    text = Buffer.concat(chunks).toString('utf8');
  } catch (err) {
    if (err instanceof Error && err.message.startsWith('RDAP: ')) throw err;
    throw failure(err, base, timeout_ms);
  }
  if (status === 404) throw new Error(`RDAP: ${domain} not found at ${base}`);
  if (status < 200 || status > 299) throw new Error(`RDAP: HTTP ${status} from ${base}`);
  let doc: unknown;
  try { doc = JSON.parse(text); } catch { throw new Error(`RDAP: not JSON from ${base}`); }
  if (typeof doc !== 'object' || doc === null || (doc as Json).objectClassName !== 'domain') throw new Error(`RDAP: not a domain object from ${base}`);
  return parseRdapDomain(doc as Json);
}
