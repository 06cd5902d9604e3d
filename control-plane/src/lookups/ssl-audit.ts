import { readFileSync } from 'node:fs';
import type { SslAudit } from '@vantage/shared-protocol';
import { auditContexts, type TcpConnect } from '@vantage/node-agent/tls-audit/handshake';
import type { Config } from '../config/index.js';
import { explainFailure, type OutboundConnector } from '../delivery/connector.js';
import { ApiError } from '../errors.js';

/*
 * GET /v1/info/ssl from the control plane (docs/api/lookups.md "SSL audit"): the audit shared
 * with the nodes' `ssl` probe (node-agent probes/tls-audit), every connection opened through the
 * outbound connector, so the outbound address policy judges every address.
 */

/** Seconds a client is told to wait after the host did not answer (Retry-After). */
export const SSL_RETRY_AFTER_S = 30;

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

/** UNAVAILABLE with Retry-After SSL_RETRY_AFTER_S: no audit of `host` (`details.q`) for `reason`. */
export function sslUnavailable(message: string, host: string, reason: string, extra: Record<string, unknown> = {}): ApiError {
  return new ApiError('UNAVAILABLE', message, { q: host, reason, ...extra }, { 'Retry-After': String(SSL_RETRY_AFTER_S) });
}

/** The audit (node-agent tls-audit/audit.ts), loaded at the first lookup: its ASN.1 parsers are ~110 modules. */
const auditModule = () => import('@vantage/node-agent/tls-audit/audit');

/**
 * The ApiError for a connection or handshake to `where` that failed with `err`.
 * @param NoCertificate the audit's error class for a server that sent no certificate
 */
function unreachable(err: unknown, host: string, where: string, NoCertificate: new (...args: never[]) => Error): ApiError {
  if (err instanceof NoCertificate) return sslUnavailable(err.message, host, 'no certificate');
  const f = explainFailure(err);
  const code = (err as { code?: string }).code;
  if (f.kind === 'refused') return new ApiError('PROBE_TARGET_INVALID', f.text, { q: host });
  if (code === 'ENOTFOUND') return new ApiError('NOT_FOUND', `${host} does not resolve: ${f.text}`, { q: host, reason: f.text });
  const timeout = f.kind === 'timeout' || code === 'ETIMEDOUT' || / within \d+ ms$/.test(f.text);
  return sslUnavailable(`no TLS handshake with ${where}: ${f.text}`, host, f.text, { timeout });
}

/** Build the service: config extra_ca_file (read now), lookup_timeout_ms; connections through `connector`. */
export function createSslAuditService(config: Config, connector: OutboundConnector, now: () => Date = () => new Date()): SslAuditService {
  const contexts = auditContexts(config.extra_ca_file ? readFileSync(config.extra_ca_file, 'utf8') : null);
  const connect: TcpConnect = (host, port, timeout_ms) => connector.connectTcp(host, port, { timeout_ms });
  return {
    async audit(host, port) {
      const { auditTls, NoCertificateError } = await auditModule();
      try {
        return await auditTls(host, port, { connect, contexts, timeout_ms: config.lookup_timeout_ms, now });
      } catch (err) {
        throw unreachable(err, host, `${host}:${port}`, NoCertificateError);
      }
    },
  };
}
