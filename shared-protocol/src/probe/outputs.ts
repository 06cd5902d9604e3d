import { z } from 'zod';

/**
 * What a node measures for one check, per probe type. These travel inside `result.batch` messages
 * and are merged into the API's node results (see results.ts). Times are milliseconds; a value
 * that was not reached (a phase after a failure) is null.
 */

/** Why a check failed, classified (STYLE.md habit 2): the target, the resolver, a timeout, policy or us. */
export const failureClassSchema = z.enum(['target', 'resolver', 'timeout', 'refused', 'unreachable', 'blocked', 'cancelled', 'rejected', 'internal']);
export type FailureClass = z.infer<typeof failureClassSchema>;

/**
 * HTTP timing phases, blackbox_exporter's boundaries mapped to spec 2.3's names: dns_ms = resolve,
 * tcp_ms = connect, tls_ms = tls handshake, ttfb_ms = processing (request sent → first byte),
 * download_ms = transfer (first byte → last byte). Integers, ms.
 */
export const httpTimingSchema = z.object({
  dns_ms: z.number().int().min(0),
  tcp_ms: z.number().int().min(0),
  tls_ms: z.number().int().min(0),
  ttfb_ms: z.number().int().min(0),
  download_ms: z.number().int().min(0),
});

/** Negotiated TLS facts (spec 2.3 `tls`). */
export const httpTlsSchema = z.object({ cipher: z.string(), version: z.string() });

/** Leaf certificate facts users expect beside `tls`: subject CN, issuer CN, expiry and days left. */
export const certificateSchema = z.object({
  subject: z.string(),
  issuer: z.string(),
  not_before: z.string(),
  not_after: z.string(),
  days_left: z.number().int(),
  san: z.array(z.string()),
});

/** One redirect followed (spec 2.3 headers-analysis `hops[]` shape). */
export const redirectHopSchema = z.object({ url: z.string(), status_code: z.number().int(), location: z.string() });

export const httpOutputSchema = z.object({
  final_url: z.string().nullable(),
  status_code: z.number().int().nullable(),
  response_ms: z.number().int().min(0).nullable(),
  response_size: z.number().int().min(0).nullable(),
  headers: z.record(z.string(), z.string()),
  timing: httpTimingSchema.nullable(),
  tls: httpTlsSchema.nullable(),
  certificate: certificateSchema.nullable(),
  redirects: z.array(redirectHopSchema),
  resolved_address: z.string().nullable(),
  /** True when the body was longer than the node's read cap and was cut. */
  body_truncated: z.boolean(),
});

/** One echo request: `rtt_ms` and `ttl` are null when no reply came within the timeout. */
export const pingPacketSchema = z.object({ seq: z.number().int().min(0), rtt_ms: z.number().min(0).nullable(), ttl: z.number().int().min(0).max(255).nullable() });

/** Ping statistics as iputils ping prints them; rtt_* are null when nothing came back. loss is 0-100 %. */
export const pingOutputSchema = z.object({
  resolved_address: z.string().nullable(),
  packets_sent: z.number().int().min(0),
  packets_received: z.number().int().min(0),
  packet_loss: z.number().min(0).max(100),
  rtt_min_ms: z.number().nullable(),
  rtt_avg_ms: z.number().nullable(),
  rtt_max_ms: z.number().nullable(),
  rtt_stddev_ms: z.number().nullable(),
  packets: z.array(pingPacketSchema),
});

/** One resource record of an answer; `value` is the presentation form (RFC 1035 master-file style). */
export const dnsRecordSchema = z.object({
  name: z.string(),
  type: z.string(),
  ttl: z.number().int().min(0),
  value: z.string(),
});

export const dnsOutputSchema = z.object({
  server: z.string(),
  protocol: z.enum(['udp', 'tcp']),
  /** RCODE mnemonic (RFC 1035 4.1.1, RFC 6895): NOERROR, NXDOMAIN, SERVFAIL, REFUSED ... */
  rcode: z.string().nullable(),
  query_ms: z.number().min(0).nullable(),
  truncated: z.boolean(),
  answers: z.array(dnsRecordSchema),
  authorities: z.array(dnsRecordSchema),
});

/** TCP connect: open, refused (RST), timeout (no answer) or unreachable (ICMP/route error). */
export const tcpOutputSchema = z.object({
  resolved_address: z.string().nullable(),
  port: z.number().int().min(1).max(65535),
  connect_ms: z.number().min(0).nullable(),
  state: z.enum(['open', 'refused', 'timeout', 'unreachable', 'error']),
});

/** One traceroute hop: `address` null and rtts null for a silent hop (`*`). */
export const tracerouteHopSchema = z.object({
  hop: z.number().int().min(1),
  address: z.string().nullable(),
  rtts_ms: z.array(z.number().min(0).nullable()),
});

export const tracerouteOutputSchema = z.object({
  resolved_address: z.string().nullable(),
  protocol: z.enum(['icmp', 'udp']),
  destination_reached: z.boolean(),
  hops: z.array(tracerouteHopSchema),
});

/** Output schema per probe type: the single map from type to measured shape. */
export const PROBE_OUTPUTS = {
  http: httpOutputSchema,
  ping: pingOutputSchema,
  dns: dnsOutputSchema,
  tcp: tcpOutputSchema,
  traceroute: tracerouteOutputSchema,
} as const;

export type HttpOutput = z.infer<typeof httpOutputSchema>;
export type PingOutput = z.infer<typeof pingOutputSchema>;
export type DnsOutput = z.infer<typeof dnsOutputSchema>;
export type TcpOutput = z.infer<typeof tcpOutputSchema>;
export type TracerouteOutput = z.infer<typeof tracerouteOutputSchema>;
export type ProbeOutputs = { http: HttpOutput; ping: PingOutput; dns: DnsOutput; tcp: TcpOutput; traceroute: TracerouteOutput };
