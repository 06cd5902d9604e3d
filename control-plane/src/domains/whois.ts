import { createRequire } from 'node:module';
import { connect } from 'node:net';
import type { DomainRegistration } from './rdap.js';

// whoiser's domain parser (whoiser/src/parsers.js, CommonJS); its own client cannot bound the answer's size.
const { parseDomainWhois } = createRequire(import.meta.url)('whoiser/src/parsers.js') as {
  parseDomainWhois(domain: string, text: string, ignorePrivacy?: boolean): Record<string, unknown>;
};

/** Largest WHOIS answer read, bytes (past it the rest is dropped). */
const WHOIS_MAX_BYTES = 64 * 1024;

/**
 * One WHOIS exchange (RFC 3912): connect to `host:port`, send `query` + CRLF, read until the
 * server closes (at most WHOIS_MAX_BYTES), within `timeout_ms`.
 * @throws on a connection error or timeout
 */
export function whoisQuery(host: string, port: number, query: string, timeout_ms: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const socket = connect({ host, port }, () => socket.write(`${query}\r\n`));
    socket.setTimeout(timeout_ms, () => socket.destroy(new Error(`WHOIS: no answer from ${host}:${port} within ${timeout_ms} ms`)));
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= WHOIS_MAX_BYTES) socket.end();
    });
    socket.on('close', () => resolve(Buffer.concat(chunks).subarray(0, WHOIS_MAX_BYTES).toString('utf8')));
    socket.on('error', (err) => reject(new Error(`WHOIS: ${err.message}`)));
  });
}

const first = (v: unknown): string | null => {
  const s = Array.isArray(v) ? v[0] : v;
  return typeof s === 'string' && s.trim() ? s.trim() : null;
};
const many = (v: unknown): string[] => (Array.isArray(v) ? v : typeof v === 'string' ? [v] : []).filter((s): s is string => typeof s === 'string' && s.trim() !== '');

/**
 * Read a WHOIS answer for `domain` with whoiser's parser: `Expiry Date` (and the registries'
 * other spellings it normalises), `Registrar`, `Name Server`, `Domain Status` (EPP codes).
 * @throws when the answer says the domain is not registered or has no expiry and no registrar
 */
export function parseWhois(domain: string, text: string): DomainRegistration {
  const data = parseDomainWhois(domain, text, true);
  const expiry = first(data['Expiry Date']);
  const date = expiry ? new Date(expiry) : null;
  const registration: DomainRegistration = {
    registrar: first(data.Registrar),
    expires_at: date && !Number.isNaN(date.getTime()) ? date : null,
    name_servers: many(data['Name Server']).map((n) => n.toLowerCase().replace(/\.$/, '').split(/\s+/)[0]!).slice(0, 50),
    statuses: many(data['Domain Status']).map((s) => s.split(/\s+/)[0]!).slice(0, 50),
  };
  if (!registration.expires_at && !registration.registrar) throw new Error(`WHOIS: no registration data for ${domain}`);
  return registration;
}
