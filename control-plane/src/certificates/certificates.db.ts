import type { SqlExecutor } from '../contracts.js';
import type { OwnerScope } from '../teams/authorize.js';
import { ownedBy } from '../teams/owner-scope.db.js';

/** A `certificates` row (0074_certificates.sql). */
export interface CertificateRow {
  id: number;
  user_id: string;
  team_id: string | null;
  order_id: number;
  status: 'issued' | 'revoking' | 'revoked' | 'expired';
  issuer: string;
  serial_hex: string;
  fingerprint_sha256: string;
  sans: string[];
  not_before: Date;
  not_after: Date;
  chain_pem: string;
  key_sealed: string;
  revoke_reason: string | null;
  revoked_at: Date | null;
  expiry_notified_at: Date | null;
  created_at: Date;
}

/** Store an issued certificate. */
export async function insertCertificate(ex: SqlExecutor, c: Pick<CertificateRow, 'user_id' | 'team_id' | 'order_id' | 'issuer' | 'serial_hex' | 'fingerprint_sha256' | 'sans' | 'not_before' | 'not_after' | 'chain_pem' | 'key_sealed'>): Promise<CertificateRow> {
  const [row] = await ex<CertificateRow[]>`
    INSERT INTO certificates (user_id, team_id, order_id, issuer, serial_hex, fingerprint_sha256, sans, not_before, not_after, chain_pem, key_sealed)
    VALUES (${c.user_id}, ${c.team_id}, ${c.order_id}, ${c.issuer}, ${c.serial_hex}, ${c.fingerprint_sha256}, ${c.sans}::text[], ${c.not_before}, ${c.not_after}, ${c.chain_pem}, ${c.key_sealed})
    RETURNING *`;
  return row!;
}

/** One certificate, or null. */
export async function getCertificate(ex: SqlExecutor, id: number): Promise<CertificateRow | null> {
  const [row] = await ex<CertificateRow[]>`SELECT * FROM certificates WHERE id = ${id}`;
  return row ?? null;
}

/** The certificates in `scope`, newest first, with the total. Those past not_after read `expired`. */
export async function listCertificates(ex: SqlExecutor, scope: OwnerScope, limit: number, offset: number): Promise<{ rows: CertificateRow[]; total: number }> {
  const [rows, [count]] = await Promise.all([
    ex<CertificateRow[]>`SELECT * FROM certificates WHERE ${ownedBy(ex, scope)} ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}`,
    ex<{ n: number }[]>`SELECT count(*)::int AS n FROM certificates WHERE ${ownedBy(ex, scope)}`,
  ]);
  return { rows, total: count!.n };
}

/** Set a certificate's status (and revocation fields). */
export async function setCertificateStatus(ex: SqlExecutor, id: number, change: Partial<Pick<CertificateRow, 'status' | 'revoke_reason' | 'revoked_at' | 'expiry_notified_at'>>): Promise<CertificateRow | null> {
  const [row] = await ex<CertificateRow[]>`UPDATE certificates SET ${ex(change as Record<string, unknown>)} WHERE id = ${id} RETURNING *`;
  return row ?? null;
}

/**
 * Claim issued certificates ending within `days` whose expiry notice has not been raised,
 * FOR UPDATE SKIP LOCKED, marking them noticed (one notice per certificate, by one instance:
 * run it in the transaction that queues the notices). Certificates already expired are skipped
 * (marked, not returned). @returns the claimed rows with their creator's e-mail address
 */
export async function claimExpiryNotices(ex: SqlExecutor, days: number, limit: number): Promise<Array<CertificateRow & { owner_email: string }>> {
  return ex<Array<CertificateRow & { owner_email: string }>>`
    WITH claimed AS (
      UPDATE certificates SET expiry_notified_at = now() WHERE id IN (
        SELECT id FROM certificates WHERE status = 'issued' AND expiry_notified_at IS NULL
          AND not_after < now() + make_interval(days => ${days})
        ORDER BY not_after LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      RETURNING *)
    SELECT claimed.*, users.email AS owner_email FROM claimed JOIN users ON users.id = claimed.user_id
    WHERE claimed.not_after > now()
    ORDER BY claimed.not_after`;
}

/** The ACME account of `directory_url`: sealed key and account URL, or null. */
export async function getAcmeAccount(ex: SqlExecutor, directory_url: string): Promise<{ key_sealed: string; account_url: string | null } | null> {
  const [row] = await ex<{ key_sealed: string; account_url: string | null }[]>`SELECT key_sealed, account_url FROM acme_accounts WHERE directory_url = ${directory_url}`;
  return row ?? null;
}

/** Store the account key of `directory_url` unless one is there already. @returns the stored one */
export async function putAcmeAccountKey(ex: SqlExecutor, directory_url: string, key_sealed: string): Promise<{ key_sealed: string; account_url: string | null }> {
  await ex`INSERT INTO acme_accounts (directory_url, key_sealed) VALUES (${directory_url}, ${key_sealed}) ON CONFLICT (directory_url) DO NOTHING`;
  return (await getAcmeAccount(ex, directory_url))!;
}

/** Remember the account URL the CA gave. */
export async function setAcmeAccountUrl(ex: SqlExecutor, directory_url: string, account_url: string): Promise<void> {
  await ex`UPDATE acme_accounts SET account_url = ${account_url} WHERE directory_url = ${directory_url}`;
}

/** A certificate's status, its row locked for a change in the caller's transaction; null when absent. */
export async function lockCertificateStatus(ex: SqlExecutor, id: number): Promise<CertificateRow['status'] | null> {
  const [row] = await ex<{ status: CertificateRow['status'] }[]>`SELECT status FROM certificates WHERE id = ${id} FOR UPDATE`;
  return row?.status ?? null;
}
