import { z } from '@hono/zod-openapi';
import { certManualChallengeSchema, certOrderSchema, dnsCredentialSchema as sharedDnsCredentialSchema, issuedCertificateSchema } from '@vantage/shared-protocol';
import type { CertificateRow } from './certificates.db.js';
import type { DnsCredentialRow } from './dns-credentials.db.js';
import type { OrderEventRow, OrderRow } from './orders.db.js';

/*
 * The response shapes of certificate orders, certificates and DNS credentials
 * (docs/api/certificates.md) and the functions that turn rows into them. Secrets, keys and
 * provider settings are never part of them.
 */

const iso = (d: Date | null) => (d === null ? null : d.toISOString());
/** int64 columns come back as BigInt; ids stay below 2^53, so JSON carries them as numbers. */
const n = (v: number | bigint) => Number(v);
const nn = (v: number | bigint | null) => (v === null ? null : Number(v));
/** The response shapes are shared-protocol's (the console reads them too), named here for the OpenAPI document. */
export const manualChallengeSchema = z.object(certManualChallengeSchema.shape).openapi('CertManualChallenge');
export const orderSchema = z.object({
  ...certOrderSchema.shape, manual_challenges: z.array(manualChallengeSchema), manual_challenge: manualChallengeSchema.nullable().openapi({ description: 'legacy: the first of manual_challenges' }),
}).openapi('CertOrderResponse');
export const certificateSchema = z.object(issuedCertificateSchema.shape).openapi('CertResponse');
export const dnsCredentialSchema = z.object(sharedDnsCredentialSchema.shape).openapi('DNSCredentialResponse');

/** A list page: `{ items[], total, page, page_size, has_more }`. */
export const pageOf = <T extends z.ZodTypeAny>(item: T) => z.object({ items: z.array(item), total: z.number().int(), page: z.number().int(), page_size: z.number().int(), has_more: z.boolean() });

/** An order with its events. */
export function toOrder(o: OrderRow, events: OrderEventRow[]): z.infer<typeof orderSchema> {
  const manual = o.status === 'validating' ? o.manual_challenges : [];
  return {
    id: n(o.id), account_id: o.user_id, team_id: o.team_id, ca: o.ca, tier: o.tier, challenge_type: o.challenge_type, common_name: o.common_name,
    sans: o.sans, sans_unicode: o.sans_unicode, status: o.status, cert_id: nn(o.cert_id), dns_credential_id: nn(o.dns_credential_id),
    retry_count: o.retry_count, last_error: o.last_error, created_at: o.created_at.toISOString(), finalized_at: iso(o.finalized_at),
    events: events.filter((e) => n(e.order_id) === n(o.id)).map((e) => ({ action: e.action, action_seq: e.action_seq, occurred_at: e.occurred_at.toISOString(), detail: e.detail })),
    manual_challenges: manual, manual_challenge: manual[0] ?? null,
  };
}

/** A certificate; one past its not_after reads `expired` unless revoked. */
export function toCertificate(c: CertificateRow, now = Date.now()): z.infer<typeof certificateSchema> {
  const status = c.status === 'issued' && c.not_after.getTime() <= now ? 'expired' : c.status;
  return {
    id: n(c.id), account_id: c.user_id, team_id: c.team_id, order_id: n(c.order_id), status, issuer: c.issuer, serial_hex: c.serial_hex,
    fingerprint_sha256: c.fingerprint_sha256, sans: c.sans, not_before: c.not_before.toISOString(), not_after: c.not_after.toISOString(),
    revoked_at: iso(c.revoked_at), revoke_reason: c.revoke_reason, created_at: c.created_at.toISOString(),
  };
}

/** A DNS credential, without its settings or secret. */
export function toDnsCredential(d: DnsCredentialRow): z.infer<typeof dnsCredentialSchema> {
  return {
    id: n(d.id), account_id: d.user_id, team_id: d.team_id, provider: d.provider, display_name: d.display_name, health_status: d.health_status,
    health_error: d.health_error, health_checked_at: iso(d.health_checked_at), revoked_at: iso(d.revoked_at), created_at: d.created_at.toISOString(),
  };
}
