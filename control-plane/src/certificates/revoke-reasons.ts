import { CERT_REVOKE_REASONS, type CertRevokeReason } from '@vantage/shared-protocol';

/**
 * Revocation reasons a user may give, with their CRLReason codes (RFC 5280 §5.3.1); the ACME
 * revokeCert request carries the code (RFC 8555 §7.6). Reasons only a CA may assert
 * (cACompromise, aACompromise, removeFromCRL, privilegeWithdrawn) are left out, as Let's Encrypt
 * refuses them from subscribers. The names are shared-protocol's (the console offers them).
 */
export const REVOKE_REASON_CODES = {
  unspecified: 0,
  keyCompromise: 1,
  affiliationChanged: 3,
  superseded: 4,
  cessationOfOperation: 5,
} as const satisfies Record<CertRevokeReason, number>;
export type RevokeReason = CertRevokeReason;
export const REVOKE_REASONS = [...CERT_REVOKE_REASONS] as [RevokeReason, ...RevokeReason[]];
