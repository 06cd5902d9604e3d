import { z } from 'zod';
import { sslAuditSchema } from '../lookups/whois-ssl.js';

/**
 * SSL audit probe params (docs/api/probes.md "SSL audit"): `timeout_ms` bounds each TLS handshake,
 * connection included (100-30000, default 10000; the HSTS request after the default handshake
 * waits at most min(timeout_ms, 5000) more); ip_version. The target is host[:port], default 443.
 */
export const sslParamsSchema = z.strictObject({
  timeout_ms: z.number().int().min(100).max(30000).default(10000),
  ip_version: z.enum(['v4', 'v6', 'auto']).default('auto'),
});

/**
 * SSL audit probe output: the address the node connected to, the port, and the audit as
 * GET /v1/info/ssl answers it (lookups `sslAuditSchema`: chain, TLS versions, OCSP, SCTs, HSTS,
 * grade), null when no audit was possible (the result's `error` and `error_class` say why).
 */
export const sslOutputSchema = z.object({
  resolved_address: z.string().nullable(),
  port: z.number().int().min(1).max(65535),
  audit: sslAuditSchema.nullable(),
});

export type SslParams = z.infer<typeof sslParamsSchema>;
export type SslOutput = z.infer<typeof sslOutputSchema>;
