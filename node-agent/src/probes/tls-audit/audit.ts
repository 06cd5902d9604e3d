import { checkServerIdentity, type PeerCertificate, type SecureVersion } from 'node:tls';
import { TLS_VERSIONS, type SslAudit } from '@vantage/shared-protocol';
import { auditCert, type AuditedCert } from './cert.js';
import { gradeAudit } from './grade.js';
import { handshake, hstsMaxAge, type AuditContexts, type TcpConnect } from './handshake.js';
import { stapledStatus } from './ocsp.js';

/*
 * The SSL audit itself (docs/api/lookups.md "SSL audit"), the same whether the control plane runs
 * it (GET /v1/info/ssl) or a node does (the `ssl` probe): one handshake as a client gets it
 * (certificate chain, protocol, cipher suite, stapled OCSP, then HSTS on the same connection) and
 * one handshake per TLS version 1.0-1.3, all at once, each on its own connection.
 */

const DAY_MS = 86_400_000;
/** Longest wait for the HSTS response head after the handshake, ms. */
const HSTS_WAIT_MAX_MS = 5000;

/** How the audit reaches the server and what it trusts. */
export interface TlsAuditOptions {
  /** Opens each TCP connection under the caller's address policy. */
  connect: TcpConnect;
  /** Trust store and per-version contexts (handshake.ts auditContexts), built once by the caller. */
  contexts: AuditContexts;
  /** Bound of each handshake (connection included), ms. */
  timeout_ms: number;
  /** The clock for `valid` and `days_until_expiry`. */
  now?: () => Date;
}

/** The server completed a handshake but sent no certificate (anonymous cipher suites). */
export class NoCertificateError extends Error {
  constructor(where: string) {
    super(`${where} sent no certificate`);
    this.name = 'NoCertificateError';
  }
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

/** Whether a handshake limited to `version` completes with that version (any failure: no). */
async function versionSupported(host: string, port: number, version: SecureVersion, opts: TlsAuditOptions): Promise<boolean> {
  try {
    const { socket } = await handshake(opts.connect, host, port, opts.contexts.only[version], opts.timeout_ms);
    const got = socket.getProtocol();
    socket.destroy();
    return got === version;
  } catch {
    return false;
  }
}

/**
 * Audit the TLS service at `host:port` (`host` a normalised name, SNI and name check; an IP
 * literal is checked against the certificate's IP addresses). `valid`: the chain verifies against
 * `opts.contexts`' trust store, the name matches and `now` is within the leaf's dates.
 * @returns the `data` of GET /v1/info/ssl (shared-protocol sslAuditSchema), `audit_ms` its duration
 * @throws the default handshake's error (`opts.connect`'s errors, a TLS alert, a reset, `code`
 *   ETIMEDOUT past `timeout_ms`), or NoCertificateError
 */
export async function auditTls(host: string, port: number, opts: TlsAuditOptions): Promise<SslAudit> {
  const now = opts.now ?? (() => new Date());
  const started = performance.now();
  const where = `${host}:${port}`;
  const versions = Promise.all(TLS_VERSIONS.map(async (version) => ({ version, supported: await versionSupported(host, port, version, opts) })));
  let first;
  try {
    first = await handshake(opts.connect, host, port, opts.contexts.any, opts.timeout_ms);
  } catch (err) {
    await versions;
    throw err;
  }
  const { socket, ocsp } = first;
  const chain = chainOf(socket.getPeerCertificate(true));
  const leaf = chain[0];
  if (!leaf) {
    socket.destroy();
    await versions;
    throw new NoCertificateError(where);
  }
  const protocol = socket.getProtocol() ?? 'unknown';
  const cipher_suite = socket.getCipher().name;
  const name_error = checkServerIdentity(host, socket.getPeerCertificate());
  // Node reports a chain failure first, else the name check (ERR_TLS_CERT_ALTNAME_INVALID): give that one its reason.
  const chain_error = socket.authorizationError && String(socket.authorizationError) !== 'ERR_TLS_CERT_ALTNAME_INVALID' ? String(socket.authorizationError) : null;
  const validation_error = chain_error ?? (name_error ? `ERR_TLS_CERT_ALTNAME_INVALID: ${(name_error as Error & { reason?: string }).reason ?? name_error.message}` : null);
  const [hsts_max_age_s, tls_versions] = await Promise.all([hstsMaxAge(socket, host, Math.min(opts.timeout_ms, HSTS_WAIT_MAX_MS)), versions]);
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
}
