import { readFileSync } from 'node:fs';
import { checkServerIdentity, type PeerCertificate, type SecureVersion } from 'node:tls';
import { TLS_VERSIONS, type SslAudit } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import { explainFailure, type OutboundConnector } from '../delivery/connector.js';
import { ApiError } from '../errors.js';
import { auditCert, type AuditedCert } from './ssl-audit-cert.js';
import { gradeAudit } from './ssl-audit-grade.js';
import { auditContexts, handshake, hstsMaxAge, type AuditContexts } from './ssl-audit-handshake.js';
import { stapledStatus } from './ssl-audit-ocsp.js';

/*
 * GET /v1/info/ssl (docs/api/lookups.md "SSL audit"): one handshake as a client gets it
 * (certificate chain, protocol, cipher suite, stapled OCSP, then HSTS on the same connection) and
 * one handshake per TLS version 1.0-1.3, all at once, each on its own connection.
 */

/** Seconds a client is told to wait after the host did not answer (Retry-After). */
export const SSL_RETRY_AFTER_S = 30;
const DAY_MS = 86_400_000;

/** The SSL audit of one process. */
export interface SslAuditService {
  /**
   * Audit the TLS service at `host:port` (host a normalised name, sslAuditQuerySchema).
   * @throws ApiError NOT_FOUND (the name does not resolve), PROBE_TARGET_INVALID (the outbound
   *   address policy refuses its addresses), UNAVAILABLE with Retry-After (timeout, connection refused
   *   or reset, no TLS handshake possible)
   */
  audit(host: string, port: number): Promise<SslAudit>;
}

/** The certificates the server sent, leaf first (node links them through issuerCertificate; the last may be a root from the trust store). */
function chainOf(peer: PeerCertificate & { issuerCertificate?: PeerCertificate }): AuditedCert[] {
  const out: AuditedCert[] = [];
  const seen = new Set<string>();
  for (let c: (PeerCertificate & { issuerCertificate?: PeerCertificate }) | undefined = peer; c?.raw && !seen.has(c.fingerprint256) && out.length < 10; c = c.issuerCertificate) {
    seen.add(c.fingerprint256);
    out.push(auditCert(c.raw));
  }
  return out;
}

/** The ApiError for a connection or handshake to `where` that failed with `err`. */
function unreachable(err: unknown, host: string, where: string): ApiError {
  const f = explainFailure(err);
  const code = (err as { code?: string }).code;
  if (f.kind === 'refused') return new ApiError('PROBE_TARGET_INVALID', f.text, { q: host });
  if (code === 'ENOTFOUND') return new ApiError('NOT_FOUND', `${host} does not resolve: ${f.text}`, { q: host, reason: f.text });
  const timeout = f.kind === 'timeout' || code === 'ETIMEDOUT' || / within \d+ ms$/.test(f.text);
  return new ApiError('UNAVAILABLE', `no TLS handshake with ${where}: ${f.text}`, { q: host, reason: f.text, timeout }, { 'Retry-After': String(SSL_RETRY_AFTER_S) });
}

/** Build the service: config extra_ca_file (read now), lookup_timeout_ms; connections through `connector`. */
export function createSslAuditService(config: Config, connector: OutboundConnector, now: () => Date = () => new Date()): SslAuditService {
  const contexts: AuditContexts = auditContexts(config.extra_ca_file ? readFileSync(config.extra_ca_file, 'utf8') : null);
  const timeout_ms = config.lookup_timeout_ms;

  async function versionSupported(host: string, port: number, version: SecureVersion): Promise<boolean> {
    try {
      const { socket } = await handshake(connector, host, port, contexts.only[version], timeout_ms);
      const got = socket.getProtocol();
      socket.destroy();
      return got === version;
    } catch {
      return false;
    }
  }

  return {
    async audit(host, port) {
      const started = performance.now();
      const where = `${host}:${port}`;
      const versions = Promise.all(TLS_VERSIONS.map(async (version) => ({ version, supported: await versionSupported(host, port, version) })));
      let first;
      try {
        first = await handshake(connector, host, port, contexts.any, timeout_ms);
      } catch (err) {
        await versions;
        throw unreachable(err, host, where);
      }
      const { socket, ocsp } = first;
      const chain = chainOf(socket.getPeerCertificate(true));
      const leaf = chain[0];
      if (!leaf) {
        socket.destroy();
        await versions;
        throw new ApiError('UNAVAILABLE', `${where} sent no certificate`, { q: host, reason: 'no certificate' }, { 'Retry-After': String(SSL_RETRY_AFTER_S) });
      }
      const protocol = socket.getProtocol() ?? 'unknown';
      const cipher_suite = socket.getCipher().name;
      const name_error = checkServerIdentity(host, socket.getPeerCertificate());
      // Node reports a chain failure first, else the name check (ERR_TLS_CERT_ALTNAME_INVALID): give that one its reason.
      const chain_error = socket.authorizationError && String(socket.authorizationError) !== 'ERR_TLS_CERT_ALTNAME_INVALID' ? String(socket.authorizationError) : null;
      const validation_error = chain_error ?? (name_error ? `ERR_TLS_CERT_ALTNAME_INVALID: ${(name_error as Error & { reason?: string }).reason ?? name_error.message}` : null);
      const [hsts_max_age_s, tls_versions] = await Promise.all([hstsMaxAge(socket, host, Math.min(timeout_ms, 5000)), versions]);
      const not_after = new Date(leaf.fields.not_after);
      const ocsp_status = stapledStatus(ocsp, leaf.fields.serial_number);
      const days_until_expiry = Math.floor((not_after.getTime() - now().getTime()) / DAY_MS);
      const base = {
        valid: validation_error === null && now() >= new Date(leaf.fields.not_before) && now() <= not_after,
        validation_error, days_until_expiry, tls_versions, cipher_suite, protocol,
        chain: chain.map((c) => c.fields), ocsp_status, hsts_max_age_s,
      };
      const { grade, warnings } = gradeAudit(base);
      return {
        domain: host, port, issuer: leaf.fields.issuer, subject: leaf.fields.subject,
        not_before: leaf.fields.not_before, not_after: leaf.fields.not_after, san_domains: leaf.san,
        sct_count: leaf.sct_count, grade, warnings, ...base, audit_ms: Math.round(performance.now() - started),
      };
    },
  };
}
