import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { splitHostPort } from '@vantage/shared-protocol';
import { explainFailure, type OutboundConnector } from '../delivery/connector.js';
import { failureKind, registryError, type DomainRegistration } from './rdap.js';

// whoiser's domain parser (whoiser/src/parsers.js, CommonJS); its own client cannot bound the answer's size.
const { parseDomainWhois } = createRequire(import.meta.url)('whoiser/src/parsers.js') as {
  parseDomainWhois(domain: string, text: string, ignorePrivacy?: boolean): Record<string, unknown>;
};

/** Largest WHOIS answer read, bytes (past it the rest is dropped). */
const WHOIS_MAX_BYTES = 64 * 1024;

/** Servers one look-up asks: the TLD's, then at most one referral (a thin registry's `Registrar WHOIS Server`). */
const WHOIS_MAX_HOPS = 2;

const first = (v: unknown): string | null => {
  const s = Array.isArray(v) ? v[0] : v;
  return typeof s === 'string' && s.trim() ? s.trim() : null;
};
const many = (v: unknown): string[] => (Array.isArray(v) ? v : typeof v === 'string' ? [v] : []).filter((s): s is string => typeof s === 'string' && s.trim() !== '');

/** A WHOIS server: host name or IP literal, and TCP port. */
export interface WhoisServer {
  host: string;
  port: number;
}

/** `host:port`, IPv6 in brackets. */
export const formatServer = (s: WhoisServer): string => (s.host.includes(':') ? `[${s.host}]:${s.port}` : `${s.host}:${s.port}`);

/**
 * What a parsed WHOIS answer (whoiser's parseDomainWhois) says: `Expiry Date` (and the
 * registries' other spellings it normalises), `Registrar`, `Name Server`, `Domain Status` (EPP codes).
 */
function registrationOf(data: Record<string, unknown>): DomainRegistration {
  const expiry = first(data['Expiry Date']);
  const date = expiry ? new Date(expiry) : null;
  return {
    registrar: first(data.Registrar),
    expires_at: date && !Number.isNaN(date.getTime()) ? date : null,
    name_servers: many(data['Name Server']).map((n) => n.toLowerCase().replace(/\.$/, '').split(/\s+/)[0]!).slice(0, 50),
    statuses: many(data['Domain Status']).map((s) => s.split(/\s+/)[0]!).slice(0, 50),
  };
}

/**
 * One WHOIS exchange (RFC 3912) through `connector` (the outbound address policy judges the
 * server's addresses): connect to `server`, send `query` + CRLF, read until the server closes
 * (at most WHOIS_MAX_BYTES), all within `timeout_ms`; `signal` ends it early.
 * @throws `WHOIS: <reason>` on a refusal, a connection error, the timeout or the abort
 */
export async function whoisQuery(connector: OutboundConnector, server: WhoisServer, query: string, timeout_ms: number, signal?: AbortSignal): Promise<string> {
  const started = performance.now();
  const where = formatServer(server);
  let socket: Socket;
  try {
    socket = await connector.connectTcp(server.host, server.port, { timeout_ms });
  } catch (err) {
    const f = explainFailure(err);
    throw registryError(`WHOIS: ${f.text}`, f.kind === 'timeout' || / within \d+ ms$/.test(f.text) ? 'timeout' : 'error');
  }
  const remaining_ms = Math.max(1, timeout_ms - Math.round(performance.now() - started));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let timed_out = false;
    const timer = setTimeout(() => { timed_out = true; socket.destroy(new Error(`no complete answer from ${where} within ${timeout_ms} ms`)); }, remaining_ms);
    const abort = () => socket.destroy(new Error('aborted'));
    if (signal?.aborted) abort();
    signal?.addEventListener('abort', abort, { once: true });
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= WHOIS_MAX_BYTES) socket.end();
    });
    socket.on('close', () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
      resolve(Buffer.concat(chunks).subarray(0, WHOIS_MAX_BYTES).toString('utf8'));
    });
    socket.on('error', (err) => reject(registryError(`WHOIS: ${err.message}`, timed_out ? 'timeout' : 'error')));
    socket.write(`${query}\r\n`);
  });
}

/** Fields of a parsed answer that name the next WHOIS server (the labels whoiser's own client follows). */
const REFERRAL_FIELDS = ['Registrar WHOIS Server', 'Registry WHOIS Server', 'ReferralServer', 'Registrar Whois', 'Whois Server', 'WHOIS Server'];

/**
 * The server a parsed answer refers to: `host`, `host:port` or `whois://host[:port]` (port 43
 * unless given; other schemes such as rwhois:// are not WHOIS and are ignored), or null.
 */
export function referralOf(data: Record<string, unknown>): WhoisServer | null {
  for (const field of REFERRAL_FIELDS) {
    const value = first(data[field]);
    if (!value) continue;
    const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value);
    if (scheme && scheme[1]!.toLowerCase() !== 'whois') continue;
    const hp = splitHostPort((scheme ? value.slice(scheme[0].length) : value).replace(/\/.*$/, ''));
    if (hp && /^[A-Za-z0-9.:-]+$/.test(hp.host)) return { host: hp.host, port: hp.port ?? 43 };
  }
  return null;
}

/**
 * Ask `server` about `domain`, and when its answer has no expiry date but refers to another
 * server, ask that one (at most WHOIS_MAX_HOPS servers; every hop through `connector`, so a
 * referral to an address the policy refuses is refused like a first server would be); `signal`
 * ends the exchange under way.
 * @returns the registration and the server that gave it
 * @throws `WHOIS: …` when a server cannot be asked (a referral's error names both servers) or no
 *   answer holds registration data
 */
export async function whoisLookup(connector: OutboundConnector, server: WhoisServer, domain: string, timeout_ms: number, signal?: AbortSignal): Promise<{ server: WhoisServer; registration: DomainRegistration }> {
  let at = server;
  let previous: { server: WhoisServer; registration: DomainRegistration | null } | null = null;
  for (let hop = 1; ; hop++) {
    let text: string;
    try {
      text = await whoisQuery(connector, at, domain, timeout_ms, signal);
    } catch (err) {
      if (!previous) throw err;
      throw registryError(`WHOIS: referral from ${formatServer(previous.server)} to ${formatServer(at)}: ${(err as Error).message.replace(/^WHOIS: /, '')}`, failureKind(err));
    }
    const data = parseDomainWhois(domain, text, true);
    const registration = registrationOf(data);
    const next = registration.expires_at ? null : referralOf(data);
    if (!next || hop >= WHOIS_MAX_HOPS || formatServer(next) === formatServer(at)) {
      if (registration.expires_at || registration.registrar) return { server: at, registration };
      if (previous?.registration) return { server: previous.server, registration: previous.registration };
      throw registryError(`WHOIS: no registration data for ${domain}`, 'not_found');
    }
    previous = { server: at, registration: registration.registrar ? registration : null };
    at = next;
  }
}
