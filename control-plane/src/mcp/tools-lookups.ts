import { dnsRecordsQuerySchema, icpQuerySchema, ipInfoQuerySchema, ipReputationQuerySchema, sslAuditQuerySchema, whoisQuerySchema } from '@vantage/shared-protocol';
import type { z } from 'zod';
import type { ToolDef } from './tool-def.js';

const data = (v: unknown) => v as Record<string, unknown>;

/**
 * The information look-ups as MCP tools (docs/api/mcp.md "Tools"), each calling the function the
 * matching /v1 route calls (lookups/lookups.ts), with that route's query schema as its input.
 */
export const LOOKUP_TOOLS: readonly ToolDef[] = [
  {
    name: 'info_ip',
    description: 'Country, region, city, ASN and network owner of an IPv4 or IPv6 address, from offline GeoLite2 and ASN data (same answer as GET /v1/info/ip).',
    input: ipInfoQuerySchema,
    async run(ctx, a: z.infer<typeof ipInfoQuerySchema>) {
      const r = await ctx.lookups.ip(a.q);
      return { data: data(r), text: `${r.ip}: ${[r.city, r.country].filter(Boolean).join(', ') || 'location unknown'}${r.asn ? `, AS${r.asn} ${r.org ?? ''}`.trimEnd() : ''}`, units: 1 };
    },
  },
  {
    name: 'info_whois',
    description: 'Registration data of a domain (RDAP, else WHOIS) or an IP address (its RIR\'s RDAP): registrar, expiry, name servers (same answer as GET /v1/info/whois).',
    input: whoisQuerySchema,
    async run(ctx, a: z.infer<typeof whoisQuerySchema>) {
      const r = await ctx.lookups.whois(a.q);
      return { data: data(r), text: `${r.domain}: registrar ${r.registrar ?? 'unknown'}, expires ${r.expires_at ?? 'unknown'}`, units: 1 };
    },
  },
  {
    name: 'info_ssl',
    description: 'SSL/TLS audit of a host (bare name, optional port): certificate chain, TLS versions, OCSP, SCTs and a grade (same answer as GET /v1/info/ssl).',
    input: sslAuditQuerySchema.omit({ node_id: true }),
    async run(ctx, a: Omit<z.infer<typeof sslAuditQuerySchema>, 'node_id'>) {
      const r = await ctx.lookups.ssl(a.q, a.port);
      return { data: data(r), text: `${r.domain}: grade ${r.grade}, ${r.valid ? 'valid' : 'not valid'}, ${r.days_until_expiry} days until expiry`, units: 1 };
    },
  },
  {
    name: 'info_dns',
    description: 'DNS records of a domain (one type of A, AAAA, MX, TXT, NS, CNAME, SOA, or all) with TTLs, from the control plane\'s resolver or `server` (same answer as GET /v1/info/dns).',
    input: dnsRecordsQuerySchema,
    async run(ctx, a: z.infer<typeof dnsRecordsQuerySchema>) {
      const r = await ctx.lookups.dns(a.q, a.type, a.server);
      const lines = r.records.map((x) => `${x.type} ${x.value} (ttl ${x.ttl})`).join('\n');
      return { data: data(r), text: `${r.domain}: ${r.records.length} records${lines ? `\n${lines}` : ''}`, units: 1 };
    },
  },
  {
    name: 'info_icp',
    description: 'Mainland-China ICP filing of a domain\'s registrable domain, from the operator-loaded data set (same answer as GET /v1/info/icp).',
    input: icpQuerySchema,
    async run(ctx, a: z.infer<typeof icpQuerySchema>) {
      const r = await ctx.lookups.icp(a.q);
      return { data: data(r), text: r.icp_number ? `${r.domain}: ${r.icp_number} (${r.company ?? 'company unknown'})` : `${r.domain}: no ICP filing known`, units: 1 };
    },
  },
  {
    name: 'ip_reputation',
    description: 'Suspicion score (0-100), risk level and evidence (Tor exit, VPN, proxy, hosting, abuse ASN) of an IP address or a domain\'s address (same answer as GET /v1/ip/reputation).',
    input: ipReputationQuerySchema,
    async run(ctx, a: z.infer<typeof ipReputationQuerySchema>) {
      const r = await ctx.lookups.reputation(a.q);
      return { data: data(r), text: `${r.ip}: score ${r.score}, risk ${r.risk_level}${r.types.length ? ` (${r.types.join(', ')})` : ''}`, units: 1 };
    },
  },
];
