import { interceptors, request } from 'undici';
import { deadlineSignal } from '@vantage/shared-protocol';
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

/** A JSON object as RDAP servers send it. */
export type Json = Record<string, unknown>;
/** The objects of an RDAP array member (anything else dropped). */
export const list = (v: unknown): Json[] => (Array.isArray(v) ? v.filter((x): x is Json => typeof x === 'object' && x !== null) : []);

/** The `fn` (formatted name) of an RFC 7095 jCard, or null. */
export function vcardName(entity: Json): string | null {
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
  if (f.kind === 'refused') return registryError(`RDAP: ${f.text}`, 'error');
  if (f.kind === 'timeout' || f.kind === 'aborted') return registryError(`RDAP: no answer from ${base} within ${timeout_ms} ms`, 'timeout');
  return registryError(`RDAP: ${base}: ${f.text}`, 'error');
}

/** A failed registry exchange: `not_found` (the server answered 404), `timeout`, or `error` (refused by the policy, HTTP status, bad answer, connection error). */
export type RegistryFailureKind = 'not_found' | 'timeout' | 'error';

/** An Error whose message is the one-line reason and whose `kind` classifies it. */
export const registryError = (message: string, kind: RegistryFailureKind): Error & { kind: RegistryFailureKind } => Object.assign(new Error(message), { kind });

/** The kind of a registry error (`error` for an error without one). */
export const failureKind = (err: unknown): RegistryFailureKind => ((err as { kind?: RegistryFailureKind }).kind ?? 'error');

/**
 * GET `<base><path>` from an RDAP server through `connector` (every connection, redirect hops
 * included, under the outbound address policy), within `timeout_ms` (and `signal`), following at
 * most RDAP_MAX_REDIRECTS redirects, reading at most RDAP_MAX_BYTES.
 * @returns the response's JSON object
 * @throws registryError with a one-line reason starting `RDAP: `: the policy's refusal, not found
 *   (404, kind `not_found`), HTTP status, not RDAP JSON, too large, timeout (kind `timeout`), connection error
 */
export async function rdapFetch(connector: OutboundConnector, base: string, path: string, timeout_ms: number, signal?: AbortSignal): Promise<Json> {
  const url = new URL(path, base.endsWith('/') ? base : `${base}/`);
  let status: number;
  let text: string;
  // Not AbortSignal.any/timeout: their WeakRefs kept each request through young-generation
  // collections (shared-protocol deadline-signal.ts).
  const deadline = deadlineSignal(signal, timeout_ms);
  try {
    const res = await request(url, {
      dispatcher: connector.dispatcher.compose(interceptors.redirect({ maxRedirections: RDAP_MAX_REDIRECTS })),
      headers: { accept: 'application/rdap+json, application/json' },
      signal: deadline.signal,
      headersTimeout: timeout_ms, bodyTimeout: timeout_ms,
    });
    status = res.statusCode;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > RDAP_MAX_BYTES) {
        res.body.destroy();
        throw registryError(`RDAP: response from ${base} over ${RDAP_MAX_BYTES} bytes`, 'error');
      }
      chunks.push(chunk);
    }
    text = Buffer.concat(chunks).toString('utf8');
  } catch (err) {
    if (err instanceof Error && err.message.startsWith('RDAP: ')) throw err;
    throw failure(err, base, timeout_ms);
  } finally {
    deadline.dispose();
  }
  const what = decodeURIComponent(path.slice(path.indexOf('/') + 1));
  if (status === 404) throw registryError(`RDAP: ${what} not found at ${base}`, 'not_found');
  if (status < 200 || status > 299) throw registryError(`RDAP: HTTP ${status} from ${base}`, 'error');
  let doc: unknown;
  try { doc = JSON.parse(text); } catch { throw registryError(`RDAP: not JSON from ${base}`, 'error'); }
  if (typeof doc !== 'object' || doc === null) throw registryError(`RDAP: not an RDAP object from ${base}`, 'error');
  return doc as Json;
}

/**
 * Look `domain` up at the RDAP base URL `base` (`<base>domain/<domain>`, RFC 9082 3.1.3) with
 * rdapFetch. @throws as rdapFetch, and when the answer is not a domain object
 */
export async function rdapLookup(connector: OutboundConnector, base: string, domain: string, timeout_ms: number, signal?: AbortSignal): Promise<DomainRegistration> {
  const doc = await rdapFetch(connector, base, `domain/${encodeURIComponent(domain)}`, timeout_ms, signal);
  if (doc.objectClassName !== 'domain') throw registryError(`RDAP: not a domain object from ${base}`, 'error');
  return parseRdapDomain(doc);
}
