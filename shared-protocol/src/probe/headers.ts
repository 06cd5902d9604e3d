import { z } from 'zod';
import { msInt } from './measures.js';

/** HTTP headers analysis params (docs/api/probes.md "HTTP headers analysis"): timeout_ms for the whole chain (1000-30000, default 10000); ip_version. */
export const headersParamsSchema = z.strictObject({
  timeout_ms: z.number().int().min(1000).max(30000).default(10000),
  ip_version: z.enum(['v4', 'v6', 'auto']).default('auto'),
});

/** Why a site is flagged (docs/api/probes.md): the four reasons of the headers analysis. */
export const HEADERS_REASONS = ['no_https_redirect', 'no_hsts', 'no_compression', 'no_cdn'] as const;

/**
 * The security-relevant headers of the final response (docs/api/probes.md), each omitted when
 * the response had none: cdn is the CDN recognised from the headers (cloudflare, fastly…).
 */
export const headersSecuritySchema = z.object({
  cdn: z.string().optional(),
  content_encoding: z.string().optional(),
  csp: z.string().optional(),
  hsts: z.string().optional(),
  referrer_policy: z.string().optional(),
  server: z.string().optional(),
  x_content_type_options: z.string().optional(),
  x_frame_options: z.string().optional(),
});

/** One redirect of the chain: the URL asked, its status and the Location it sent. */
const hopSchema = z.object({ url: z.string(), status_code: z.number().int().min(100).max(999), location: z.string() });

/**
 * Headers analysis output (docs/api/probes.md): `url` asked, `final_url` reached, `hops[]` (the
 * redirects followed), `headers` of the final response (keys lower-case, repeated values joined
 * with ", "), `security`, `analysis {insecure, reasons[]}`, plus the final `status_code`,
 * `response_ms` (whole chain, integer ms) and `resolved_address`.
 */
export const headersOutputSchema = z.object({
  url: z.string(),
  final_url: z.string().nullable(),
  status_code: z.number().int().min(100).max(999).nullable(),
  response_ms: msInt().nullable(),
  resolved_address: z.string().nullable(),
  hops: z.array(hopSchema).max(11),
  headers: z.record(z.string(), z.string()),
  security: headersSecuritySchema,
  analysis: z.object({ insecure: z.boolean(), reasons: z.array(z.enum(HEADERS_REASONS)).max(HEADERS_REASONS.length) }),
});

export type HeadersParams = z.infer<typeof headersParamsSchema>;
export type HeadersSecurity = z.infer<typeof headersSecuritySchema>;
export type HeadersOutput = z.infer<typeof headersOutputSchema>;
