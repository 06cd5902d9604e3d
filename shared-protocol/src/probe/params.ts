import { z } from 'zod';
import { LIMITS as L } from '../limits.js';
import { httpHeadersSchema } from '../http-headers.js';
import { mtrParamsSchema, type MtrParams } from './mtr.js';
import { smtpParamsSchema, type SmtpParams } from './smtp.js';
import { ntpParamsSchema, type NtpParams } from './ntp.js';
import { headersParamsSchema, type HeadersParams } from './headers.js';
import { speedtestParamsSchema, type SpeedtestParams } from './speedtest.js';
import { sslParamsSchema, type SslParams } from './ssl.js';

/** The ad-hoc probe types of docs/api/probes.md. */
export const PROBE_TYPES = ['http', 'ping', 'dns', 'tcp', 'traceroute', 'mtr', 'smtp', 'ntp', 'headers', 'speedtest', 'ssl'] as const;

/**
 * The probe types of the first protocol releases: what a node that sends no `capabilities` list is
 * taken to run (a node that predates mtr, smtp and ntp must not be picked for them).
 */
export const BASE_PROBE_TYPES = ['http', 'ping', 'dns', 'tcp', 'traceroute'] as const;
export const probeTypeSchema = z.enum(PROBE_TYPES);
export type ProbeType = z.infer<typeof probeTypeSchema>;

const timeoutMs = (def: number) =>
  z.number().int().min(L.probe_timeout_ms_min).max(L.probe_timeout_ms_max).default(def);

/**
 * HTTP probe params (docs/api/probes.md): method default GET; timeout_ms 1000-30000 default 10000; headers
 * (http-headers.ts: names, values and count checked, CR/LF refused); body up to 32768 characters;
 * follow_redirects default true; ip_version v4/v6/auto default auto.
 */
export const httpParamsSchema = z.strictObject({
  method: z.enum(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH']).default('GET'),
  timeout_ms: z.number().int().min(L.http_timeout_ms_min).max(L.http_timeout_ms_max).default(L.http_timeout_ms_default),
  headers: httpHeadersSchema().default({}),
  body: z.string().max(L.http_body_max_chars).optional(),
  follow_redirects: z.boolean().default(true),
  ip_version: z.enum(['v4', 'v6', 'auto']).default('auto'),
});

/**
 * Ping params (docs/api/probes.md): count default 4, max 50; timeout_ms default 5000 (per packet);
 * interval_ms between echo requests (ours, default 1000 like iputils, min 10).
 */
export const pingParamsSchema = z.strictObject({
  count: z.number().int().min(1).max(L.ping_count_max).default(L.ping_count_default),
  timeout_ms: timeoutMs(L.ping_timeout_ms_default),
  interval_ms: z.number().int().min(10).max(10000).default(1000),
  ip_version: z.enum(['v4', 'v6', 'auto']).default('auto'),
});

/** DNS record types accepted by the DNS probe (docs/api/probes.md). */
export const DNS_RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'SOA', 'CAA', 'ANY'] as const;

/**
 * DNS params (docs/api/probes.md): record_type default A; server as host or host:port (IPv6 as [addr]:port);
 * protocol udp (TCP fallback on truncation, RFC 7766) or tcp; timeout_ms default 5000 (ours).
 */
export const dnsParamsSchema = z.strictObject({
  record_type: z.enum(DNS_RECORD_TYPES).default('A'),
  server: z.string().min(1).max(260).regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.:_-]+)(:\d{1,5})?$/, 'must be host or host:port').optional(),
  protocol: z.enum(['udp', 'tcp']).default('udp'),
  timeout_ms: timeoutMs(L.ping_timeout_ms_default),
});

/** TCP connect params (docs/api/probes.md): port 1-65535 (or in the target as host:port); timeout_ms default 5000. */
export const tcpParamsSchema = z.strictObject({
  port: z.number().int().min(L.tcp_port_min).max(L.tcp_port_max).optional(),
  timeout_ms: timeoutMs(L.tcp_timeout_ms_default),
  ip_version: z.enum(['v4', 'v6', 'auto']).default('auto'),
});

/**
 * Traceroute params (docs/api/probes.md): max_hops default 30 (bound 64 is ours); protocol icmp (default) or
 * udp (classic port 33434+); probes_per_hop default 3 like traceroute(8); timeout_ms per probe.
 */
export const tracerouteParamsSchema = z.strictObject({
  max_hops: z.number().int().min(1).max(L.traceroute_max_hops_max).default(L.traceroute_max_hops_default),
  protocol: z.enum(['icmp', 'udp']).default('icmp'),
  probes_per_hop: z.number().int().min(1).max(5).default(3),
  timeout_ms: z.number().int().min(100).max(10000).default(2000),
  ip_version: z.enum(['v4', 'v6', 'auto']).default('auto'),
});

/** Param schema per probe type; the single place that maps a type to its params. */
export const PROBE_PARAMS = {
  http: httpParamsSchema,
  ping: pingParamsSchema,
  dns: dnsParamsSchema,
  tcp: tcpParamsSchema,
  traceroute: tracerouteParamsSchema,
  mtr: mtrParamsSchema,
  smtp: smtpParamsSchema,
  ntp: ntpParamsSchema,
  headers: headersParamsSchema,
  speedtest: speedtestParamsSchema,
  ssl: sslParamsSchema,
} as const;

export type HttpParams = z.infer<typeof httpParamsSchema>;
export type PingParams = z.infer<typeof pingParamsSchema>;
export type DnsParams = z.infer<typeof dnsParamsSchema>;
export type TcpParams = z.infer<typeof tcpParamsSchema>;
export type TracerouteParams = z.infer<typeof tracerouteParamsSchema>;
export type ProbeParams = { http: HttpParams; ping: PingParams; dns: DnsParams; tcp: TcpParams; traceroute: TracerouteParams;
  mtr: MtrParams; smtp: SmtpParams; ntp: NtpParams; headers: HeadersParams; speedtest: SpeedtestParams; ssl: SslParams };
