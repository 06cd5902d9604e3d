import { z } from 'zod';
import { LIMITS as L } from '../limits.js';
import { splitHostPort } from '../host-port.js';
import { textString } from '../parse.js';
import { dnsParamsSchema, pingParamsSchema, tcpParamsSchema, tracerouteParamsSchema } from '../probe/params.js';

/*
 * Config of the network monitor types. ping, tcp, dns and traceroute are the probe params of
 * docs/api/probes.md (the same schemas, so a monitor check runs exactly like an ad-hoc probe); the others
 * are ours: the API names these types but not their fields.
 */

/**
 * `ping` monitor config: the ping probe params (count 1-50 default 4, timeout_ms per packet
 * default 5000, interval_ms default 1000, ip_version) plus the limits that make a round down:
 * `max_packet_loss_pct` (0-100, default 50: down when more packets are lost) and
 * `max_avg_rtt_ms` (optional: down when the average round trip is longer).
 * @example { "count": 5, "max_packet_loss_pct": 20, "max_avg_rtt_ms": 150 }
 */
export const pingMonitorConfigSchema = pingParamsSchema.extend({
  max_packet_loss_pct: z.number().min(0).max(100).default(50),
  max_avg_rtt_ms: z.number().int().min(1).max(60_000).optional(),
});

/** Longest text a tcp monitor sends or expects, characters. */
export const TCP_BANNER_MAX_CHARS = 1024;

/**
 * `tcp` monitor config: the TCP probe params (port 1-65535 when the target has none, timeout_ms
 * default 5000, ip_version) plus `expect` (`open`, default: up when the port accepts;
 * `closed`: up when it does not, e.g. a database port that must not be exposed), `send` (text
 * written once connected, e.g. `PING\r\n`) and `expect_banner` (text the server must send back
 * within timeout_ms; both only with expect `open`).
 * @example { "port": 6379, "send": "PING\r\n", "expect_banner": "+PONG" }
 */
export const tcpMonitorConfigSchema = tcpParamsSchema.extend({
  expect: z.enum(['open', 'closed']).default('open'),
  send: textString().min(1).max(TCP_BANNER_MAX_CHARS).optional(),
  expect_banner: textString().min(1).max(TCP_BANNER_MAX_CHARS).optional(),
}).refine((c) => c.expect === 'open' || (c.send === undefined && c.expect_banner === undefined), {
  message: 'send and expect_banner need expect open', path: ['expect'],
});
/** `traceroute` monitor config: the traceroute probe params (max_hops default 30, protocol icmp/udp, probes_per_hop, timeout_ms, ip_version). */
export const tracerouteMonitorConfigSchema = tracerouteParamsSchema;

/** Response codes a dns monitor may expect (RFC 1035 4.1.1, RFC 2136, as dns-packet names them). */
export const DNS_RCODES = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED', 'YXDOMAIN', 'YXRRSET', 'NXRRSET', 'NOTAUTH', 'NOTZONE'] as const;

/**
 * `dns` monitor config: the DNS probe params (record_type default A, server, protocol, timeout_ms)
 * plus `expected_values`: answers that must be present (compared case-insensitively, without a
 * trailing dot, e.g. `198.51.100.7` for A, `10 mx.example.com` for MX); empty (default) = any
 * answer passes. `expected_match` `all` (default: every expected value) or `any` (at least one).
 * `expected_rcode` (default NOERROR): the response code that counts as up, e.g. NXDOMAIN for a
 * name that must not exist.
 * @example { "record_type": "A", "server": "1.1.1.1", "expected_values": ["198.51.100.7"] }
 */
export const dnsMonitorConfigSchema = dnsParamsSchema.extend({
  expected_values: z.array(textString().trim().min(1).max(512)).max(20).default([]),
  expected_match: z.enum(['all', 'any']).default('all'),
  expected_rcode: z.enum(DNS_RCODES).default('NOERROR'),
});

const days = (fallback: number, min: number) => z.number().int().min(min).max(365).default(fallback);

/**
 * `ssl_expiry` monitor config: `port` (1-65535; default the target's, else 443),
 * `min_days_remaining` (0-365, default 14: the check is down when fewer whole days remain before
 * the certificate expires), `warn_days` (1-365, default 14: the certificate is reported as
 * expiring, event `ssl.expiring`, when fewer days remain), `critical_days` (0-365, default 3, at
 * most warn_days: also down when fewer days remain; an expired or invalid certificate always
 * fails), `timeout_ms` (1000-30000, default 10000), `ip_version`.
 * @example { "min_days_remaining": 21, "warn_days": 30, "critical_days": 7 }
 */
export const sslExpiryMonitorConfigSchema = z.strictObject({
  port: z.number().int().min(L.tcp_port_min).max(L.tcp_port_max).optional(),
  min_days_remaining: days(14, 0),
  warn_days: days(14, 1),
  critical_days: days(3, 0),
  timeout_ms: z.number().int().min(L.probe_timeout_ms_min).max(L.probe_timeout_ms_max).default(10_000),
  ip_version: z.enum(['v4', 'v6', 'auto']).default('auto'),
}).refine((c) => c.critical_days <= c.warn_days, { message: 'critical_days must not exceed warn_days', path: ['critical_days'] });

/**
 * `domain_expiry` monitor config (checked by the control plane against the registry):
 * `min_days_remaining` (0-365, default 30: the check is down when fewer whole days remain before
 * the registration expires), `warn_days` (1-365, default 30: event `domain.expiring`),
 * `critical_days` (0-365, default 7, at most warn_days: also down when fewer days remain).
 * @example { "min_days_remaining": 30, "warn_days": 60, "critical_days": 14 }
 */
export const domainExpiryMonitorConfigSchema = z.strictObject({
  min_days_remaining: days(30, 0),
  warn_days: days(30, 1),
  critical_days: days(7, 0),
}).refine((c) => c.critical_days <= c.warn_days, { message: 'critical_days must not exceed warn_days', path: ['critical_days'] });

/**
 * DNS block lists an `rbl` monitor queries when its config names none: widely used public lists
 * that answer anonymous queries.
 */
export const DEFAULT_RBL_ZONES = ['zen.spamhaus.org', 'bl.spamcop.net', 'b.barracudacentral.org', 'psbl.surriel.com', 'dnsbl-1.uceprotect.net'] as const;

const ZONE = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

/**
 * `rbl` monitor config: `zones` (1-50 DNS block-list zones, lower-cased and de-duplicated;
 * default {@link DEFAULT_RBL_ZONES}); the check fails when the target (an IP address, or a
 * domain for domain lists) is listed in any. `server` (a resolver, host or host:port) and
 * `timeout_ms` (default 5000) as in the DNS probe. `server` is a host the check contacts, so
 * the probe target policy applies to it ({@link rblServerHost}).
 * @example { "zones": ["zen.spamhaus.org", "bl.spamcop.net"] }
 */
export const rblMonitorConfigSchema = z.strictObject({
  zones: z.array(textString().trim().toLowerCase().regex(ZONE, 'must be a DNS zone such as zen.spamhaus.org'))
    .min(1).max(50).transform((zones) => [...new Set(zones)]).default([...DEFAULT_RBL_ZONES]),
  server: dnsParamsSchema.shape.server,
  timeout_ms: dnsParamsSchema.shape.timeout_ms,
});

/**
 * The host an `rbl` check sends its DNS queries to: the host of `config.server` (`host`,
 * `host:port`, `[v6]:port`; {@link splitHostPort}), or null when the node's own resolver is used
 * (or the text is malformed, which the schema refuses first). The one rule for both sides
 * (docs/api/checks.md "rbl"): the control plane judges this host with the probe target policy
 * when the monitor is saved, like a dns monitor's server (private, loopback… only with a node of
 * the owner's that allows private targets, or inside the deployment's `probe_allow_cidrs`), and
 * the node judges it again, under the monitor's policy and its own, before the first query.
 * @example rblServerHost({ server: '[2001:db8::53]:5353' }) // '2001:db8::53'
 */
export function rblServerHost(config: { server?: string | undefined }): string | null {
  return config.server === undefined ? null : splitHostPort(config.server)?.host ?? null;
}
