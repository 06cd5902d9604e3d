import { z } from 'zod';
import {
  MEASURED_MS_MAX, dnsOutputSchema, httpOutputSchema, httpTimingSchema, pingOutputSchema, tcpOutputSchema, tracerouteOutputSchema,
} from '../probe/outputs.js';
import { browserCheckOutputSchema } from './browser.js';
import type { NodeCheckType } from './types.js';

/*
 * What a node reports for one monitor check, per check type (docs/api/checks.md). Types that
 * share a probe extend its output (docs/api/probes.md), so a check's output reads like the
 * ad-hoc probe's plus what the check decided. Durations are ms.
 */

const ms = () => z.number().min(0).max(MEASURED_MS_MAX);
const count = () => z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** Longest response text a check output carries (`response_preview`, a TCP `banner`), characters. */
export const RESPONSE_PREVIEW_MAX_CHARS = 500;

/**
 * `http` and `https`: the HTTP probe's output plus `certificate_error`, OpenSSL's reason when an
 * https monitor with `ignore_tls_errors` accepted an invalid certificate (null otherwise: a valid
 * certificate, plain http, or a rejected one, which fails the check).
 */
export const httpCheckOutputSchema = httpOutputSchema.extend({
  certificate_error: z.string().nullable(),
});
export type HttpCheckOutput = z.infer<typeof httpCheckOutputSchema>;

/** `keyword`: the http output plus `keyword_found` (null when no body was read). */
export const keywordCheckOutputSchema = httpCheckOutputSchema.extend({
  keyword_found: z.boolean().nullable(),
});
export type KeywordCheckOutput = z.infer<typeof keywordCheckOutputSchema>;

/** `ping`: the ping probe's output; the monitor's loss and rtt limits decide success. */
export const pingCheckOutputSchema = pingOutputSchema;
export type PingCheckOutput = z.infer<typeof pingCheckOutputSchema>;

/**
 * `tcp`: the TCP probe's output plus `expected` (`open` or `closed`), `banner` (the first
 * RESPONSE_PREVIEW_MAX_CHARS characters the server sent, null when none was read) and
 * `banner_matched` (null without an expected banner).
 */
export const tcpCheckOutputSchema = tcpOutputSchema.extend({
  expected: z.enum(['open', 'closed']),
  banner: z.string().max(RESPONSE_PREVIEW_MAX_CHARS).nullable(),
  banner_matched: z.boolean().nullable(),
});
export type TcpCheckOutput = z.infer<typeof tcpCheckOutputSchema>;

/**
 * `dns`: the DNS probe's output plus the expected values found in the answer (`matched_values`)
 * and those not found (`missing_values`), as configured.
 */
export const dnsCheckOutputSchema = dnsOutputSchema.extend({
  matched_values: z.array(z.string()),
  missing_values: z.array(z.string()),
});
export type DnsCheckOutput = z.infer<typeof dnsCheckOutputSchema>;

/**
 * `traceroute`: the traceroute probe's output plus `path_changed`: true when the hop addresses
 * differ from this node's previous round of the monitor, null on the first round the node
 * remembers (docs/api/checks.md).
 */
export const tracerouteCheckOutputSchema = tracerouteOutputSchema.extend({
  path_changed: z.boolean().nullable(),
});
export type TracerouteCheckOutput = z.infer<typeof tracerouteCheckOutputSchema>;

/**
 * `ssl_expiry`: one TLS handshake with SNI. Certificate fields are null when no certificate was
 * received. `days_until_expiry` is whole days until not_after (negative once expired);
 * `chain_valid` says whether the chain verifies against the node's trusted roots (`chain_error`
 * names OpenSSL's reason when not); `hostname_match` whether the leaf is valid for the host
 * (RFC 6125 as Node's tls.checkServerIdentity applies it).
 */
export const sslExpiryCheckOutputSchema = z.object({
  resolved_address: z.string().nullable(),
  port: z.number().int().min(1).max(65535),
  servername: z.string().nullable(),
  handshake_ms: ms().nullable(),
  tls_version: z.string().nullable(),
  cipher: z.string().nullable(),
  subject: z.string().nullable(),
  issuer: z.string().nullable(),
  not_before: z.string().nullable(),
  not_after: z.string().nullable(),
  days_until_expiry: z.number().int().nullable(),
  san: z.array(z.string()),
  fingerprint_sha256: z.string().nullable(),
  chain_valid: z.boolean().nullable(),
  chain_error: z.string().nullable(),
  hostname_match: z.boolean().nullable(),
});
export type SslExpiryCheckOutput = z.infer<typeof sslExpiryCheckOutputSchema>;

/** Most addresses of a host name an rbl check looks up (the rest are left out). */
export const RBL_ADDRESSES_MAX = 8;

/**
 * One block-list look-up: `listed` true when the zone answered an address in 127.0.0.0/8
 * (RFC 5782 2.1), false for NXDOMAIN or no A record, null when the look-up failed (`error`).
 * `codes` are the A answers (the list's reason codes), `reasons` its TXT records.
 */
export const rblListingSchema = z.object({
  address: z.string(),
  zone: z.string(),
  listed: z.boolean().nullable(),
  codes: z.array(z.string()),
  reasons: z.array(z.string()),
  error: z.string().nullable(),
});

/**
 * `rbl`: the addresses checked (the target IP, or up to RBL_ADDRESSES_MAX addresses of a host
 * name), the resolver asked, one listing per address and zone, and how many are listed.
 */
export const rblCheckOutputSchema = z.object({
  server: z.string().nullable(),
  addresses: z.array(z.string()).max(RBL_ADDRESSES_MAX),
  listings: z.array(rblListingSchema).max(RBL_ADDRESSES_MAX * 50),
  listed_count: z.number().int().min(0),
});
export type RblCheckOutput = z.infer<typeof rblCheckOutputSchema>;

/**
 * `llm_endpoint`, `tool_api`, `rag`: one HTTP call. `latency_ms` is the response time (request
 * to last byte), `tokens_used`/`prompt_tokens`/`completion_tokens` come from an OpenAI-compatible
 * `usage` object when the answer has one, `model` from its `model` field, `response_preview` is
 * the first RESPONSE_PREVIEW_MAX_CHARS characters of the body, `missing_fields` the configured
 * `expected_fields` the answer lacks.
 */
export const agentEndpointCheckOutputSchema = z.object({
  final_url: z.string().nullable(),
  resolved_address: z.string().nullable(),
  status_code: z.number().int().min(100).max(999).nullable(),
  latency_ms: z.number().int().min(0).max(MEASURED_MS_MAX).nullable(),
  timing: httpTimingSchema.nullable(),
  response_size: count().nullable(),
  body_truncated: z.boolean(),
  model: z.string().nullable(),
  prompt_tokens: count().nullable(),
  completion_tokens: count().nullable(),
  tokens_used: count().nullable(),
  response_preview: z.string().max(RESPONSE_PREVIEW_MAX_CHARS).nullable(),
  missing_fields: z.array(z.string()).max(20),
});
export type AgentEndpointCheckOutput = z.infer<typeof agentEndpointCheckOutputSchema>;

/** Output schema per node check type: the single map from check type to reported shape. */
export const CHECK_OUTPUTS = {
  http: httpCheckOutputSchema,
  https: httpCheckOutputSchema,
  keyword: keywordCheckOutputSchema,
  ping: pingCheckOutputSchema,
  tcp: tcpCheckOutputSchema,
  dns: dnsCheckOutputSchema,
  traceroute: tracerouteCheckOutputSchema,
  ssl_expiry: sslExpiryCheckOutputSchema,
  rbl: rblCheckOutputSchema,
  llm_endpoint: agentEndpointCheckOutputSchema,
  tool_api: agentEndpointCheckOutputSchema,
  rag: agentEndpointCheckOutputSchema,
  browser: browserCheckOutputSchema,
} as const satisfies Record<NodeCheckType, z.ZodType>;

export type CheckOutputs = { [T in NodeCheckType]: z.infer<(typeof CHECK_OUTPUTS)[T]> };
