import { z } from 'zod';
import { LIMITS } from '../limits.js';
import { MEASURED_MS_MAX, ms, msInt, certificateSchema } from './measures.js';
import { mtrOutputSchema, type MtrOutput } from './mtr.js';
import { smtpOutputSchema, type SmtpOutput } from './smtp.js';
import { ntpOutputSchema, type NtpOutput } from './ntp.js';
import { headersOutputSchema, type HeadersOutput } from './headers.js';
import { speedtestOutputSchema, type SpeedtestOutput } from './speedtest.js';
import { sslOutputSchema, type SslOutput } from './ssl.js';

/**
 * What a node measures for one check, per probe type. These travel inside `result.batch` messages
 * and are merged into the API's node results (see results.ts). Times are milliseconds; a value
 * that was not reached (a phase after a failure) is null. Every value is bounded to what a real
 * measurement can give (no negative or absurd times, no more replies than requests), so a broken
 * or hostile node cannot publish impossible figures: such a result is refused as a whole.
 */

export { MEASURED_MS_MAX, certificateSchema };

/** Why a check failed, classified: the target, the resolver, a timeout, policy or us. */
export const failureClassSchema = z.enum(['target', 'resolver', 'timeout', 'refused', 'unreachable', 'blocked', 'cancelled', 'rejected', 'internal']);
export type FailureClass = z.infer<typeof failureClassSchema>;

/**
 * HTTP timing phases, blackbox_exporter's boundaries mapped to docs/api/probes.md's names: dns_ms = resolve,
 * tcp_ms = connect, tls_ms = tls handshake, ttfb_ms = processing (request sent → first byte),
 * download_ms = transfer (first byte → last byte). Integers, ms.
 */
export const httpTimingSchema = z.object({
  dns_ms: msInt(),
  tcp_ms: msInt(),
  tls_ms: msInt(),
  ttfb_ms: msInt(),
  download_ms: msInt(),
});

/** Negotiated TLS facts (docs/api/probes.md `tls`). */
export const httpTlsSchema = z.object({ cipher: z.string(), version: z.string() });

/** An HTTP status code as received: three digits (RFC 9110 15). */
const statusCode = () => z.number().int().min(100).max(999);

/** One redirect followed (docs/api/probes.md headers-analysis `hops[]` shape). */
export const redirectHopSchema = z.object({ url: z.string(), status_code: statusCode(), location: z.string() });

/** Redirects a node may report: it follows at most 10 and records the 11th before giving up. */
export const REDIRECTS_MAX = 11;

export const httpOutputSchema = z.object({
  final_url: z.string().nullable(),
  status_code: statusCode().nullable(),
  response_ms: msInt().nullable(),
  response_size: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable(),
  headers: z.record(z.string(), z.string()),
  timing: httpTimingSchema.nullable(),
  tls: httpTlsSchema.nullable(),
  certificate: certificateSchema.nullable(),
  redirects: z.array(redirectHopSchema).max(REDIRECTS_MAX),
  resolved_address: z.string().nullable(),
  /** True when the body was longer than the node's read cap and was cut. */
  body_truncated: z.boolean(),
});

/** One echo request: `rtt_ms` and `ttl` are null when no reply came within the timeout. */
export const pingPacketSchema = z.object({ seq: z.number().int().min(0).max(LIMITS.ping_count_max), rtt_ms: ms().nullable(), ttl: z.number().int().min(0).max(255).nullable() });

/** The fields of a ping output ({@link pingOutputSchema}), before its consistency rules. */
const pingOutputShape = z.object({
  resolved_address: z.string().nullable(),
  packets_sent: z.number().int().min(0).max(LIMITS.ping_count_max),
  packets_received: z.number().int().min(0).max(LIMITS.ping_count_max),
  packet_loss: z.number().min(0).max(100),
  rtt_min_ms: ms().nullable(),
  rtt_avg_ms: ms().nullable(),
  rtt_max_ms: ms().nullable(),
  rtt_stddev_ms: ms().nullable(),
  packets: z.array(pingPacketSchema).max(LIMITS.ping_count_max),
});

/**
 * The consistency rules of {@link pingOutputSchema}, each broken one an issue at its field. A
 * module-level function that allocates nothing for a consistent output: it runs for every ping
 * result a node reports.
 */
function pingConsistency(p: z.infer<typeof pingOutputShape>, ctx: z.RefinementCtx): void {
  if (p.packets_received > p.packets_sent) pingIssue(ctx, 'packets_received', 'more replies than requests sent');
  if (p.packets.length > p.packets_sent) pingIssue(ctx, 'packets', 'more packet entries than requests sent');
  let answered = 0;
  for (const x of p.packets) if (x.rtt_ms !== null) answered++;
  if (answered > p.packets_received) pingIssue(ctx, 'packets', 'more answered packets than packets_received');
  const loss = p.packets_sent === 0 ? 0 : ((p.packets_sent - p.packets_received) / p.packets_sent) * 100;
  if (Math.abs(loss - p.packet_loss) > 0.01) pingIssue(ctx, 'packet_loss', `packet_loss must be ${loss.toFixed(2)} for these counts`);
  const nulls = Number(p.rtt_min_ms === null) + Number(p.rtt_avg_ms === null) + Number(p.rtt_max_ms === null) + Number(p.rtt_stddev_ms === null);
  if (p.packets_received === 0 ? nulls < 4 : nulls > 0) pingIssue(ctx, 'rtt_avg_ms', 'rtt statistics must be present exactly when a reply was received');
  if (p.rtt_min_ms !== null && p.rtt_avg_ms !== null && p.rtt_max_ms !== null && !(p.rtt_min_ms <= p.rtt_avg_ms && p.rtt_avg_ms <= p.rtt_max_ms)) {
    pingIssue(ctx, 'rtt_avg_ms', 'rtt_min_ms ≤ rtt_avg_ms ≤ rtt_max_ms does not hold');
  }
}

function pingIssue(ctx: z.RefinementCtx, path: string, message: string): void {
  ctx.addIssue({ code: 'custom', path: [path], message });
}

/**
 * Ping statistics as iputils ping prints them; rtt_* are null when nothing came back. loss is 0-100 %.
 * Consistency is checked: received ≤ sent ≤ 50 (docs/api/probes.md count), one packet entry per request
 * sent at most, loss matching the counts, rtt_* present exactly when something was received and
 * min ≤ avg ≤ max.
 */
export const pingOutputSchema = pingOutputShape.superRefine(pingConsistency);

/** One resource record of an answer; `value` is the presentation form (RFC 1035 master-file style). */
export const dnsRecordSchema = z.object({
  name: z.string(),
  type: z.string(),
  /** Seconds, 0 to 2^31 − 1 (RFC 2181 8). */
  ttl: z.number().int().min(0).max(2 ** 31 - 1),
  value: z.string(),
});

export const dnsOutputSchema = z.object({
  server: z.string(),
  protocol: z.enum(['udp', 'tcp']),
  /** RCODE mnemonic (RFC 1035 4.1.1, RFC 6895): NOERROR, NXDOMAIN, SERVFAIL, REFUSED ... */
  rcode: z.string().nullable(),
  query_ms: ms().nullable(),
  truncated: z.boolean(),
  answers: z.array(dnsRecordSchema),
  authorities: z.array(dnsRecordSchema),
});

/** TCP connect: open, refused (RST), timeout (no answer) or unreachable (ICMP/route error). */
export const tcpOutputSchema = z.object({
  resolved_address: z.string().nullable(),
  port: z.number().int().min(1).max(65535),
  connect_ms: ms().nullable(),
  state: z.enum(['open', 'refused', 'timeout', 'unreachable', 'error']),
});

/** One traceroute hop: `address` null and rtts null for a silent hop (`*`). */
export const tracerouteHopSchema = z.object({
  hop: z.number().int().min(1).max(LIMITS.traceroute_max_hops_max),
  address: z.string().nullable(),
  /** One entry per probe sent to this hop (probes_per_hop, at most 5). */
  rtts_ms: z.array(ms().nullable()).max(5),
});

export const tracerouteOutputSchema = z.object({
  resolved_address: z.string().nullable(),
  protocol: z.enum(['icmp', 'udp']),
  destination_reached: z.boolean(),
  hops: z.array(tracerouteHopSchema).max(LIMITS.traceroute_max_hops_max),
});

/** Output schema per probe type: the single map from type to measured shape. */
export const PROBE_OUTPUTS = {
  http: httpOutputSchema,
  ping: pingOutputSchema,
  dns: dnsOutputSchema,
  tcp: tcpOutputSchema,
  traceroute: tracerouteOutputSchema,
  mtr: mtrOutputSchema,
  smtp: smtpOutputSchema,
  ntp: ntpOutputSchema,
  headers: headersOutputSchema,
  speedtest: speedtestOutputSchema,
  ssl: sslOutputSchema,
} as const;

export type HttpOutput = z.infer<typeof httpOutputSchema>;
export type PingOutput = z.infer<typeof pingOutputSchema>;
export type DnsOutput = z.infer<typeof dnsOutputSchema>;
export type TcpOutput = z.infer<typeof tcpOutputSchema>;
export type TracerouteOutput = z.infer<typeof tracerouteOutputSchema>;
export type ProbeOutputs = { http: HttpOutput; ping: PingOutput; dns: DnsOutput; tcp: TcpOutput; traceroute: TracerouteOutput;
  mtr: MtrOutput; smtp: SmtpOutput; ntp: NtpOutput; headers: HeadersOutput; speedtest: SpeedtestOutput; ssl: SslOutput };
