import type { SqlExecutor } from '../contracts.js';
import type { OwnerScope } from '../teams/authorize.js';
import { ownedBy } from '../teams/owner-scope.db.js';
import type { ProviderName } from './providers/dns-provider.js';

/** A `dns_credentials` row (0074_certificates.sql); `id` is int64 (a number: ids stay below 2^53). */
export interface DnsCredentialRow {
  id: number;
  user_id: string;
  team_id: string | null;
  provider: ProviderName;
  display_name: string;
  settings: Record<string, unknown>;
  secret_sealed: string;
  health_status: 'valid' | 'invalid' | 'unknown';
  health_error: string | null;
  health_checked_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
}

/** Store a new credential (secret already sealed). `seal` gets the new id to bind the secret to it. */
export async function insertDnsCredential(ex: SqlExecutor, c: { user_id: string; team_id: string | null; provider: ProviderName; display_name: string; settings: Record<string, unknown> }, seal: (id: number) => string): Promise<DnsCredentialRow> {
  const [next] = await ex<{ id: number }[]>`SELECT nextval('dns_credentials_id_seq') AS id`;
  const id = next!.id;
  const [row] = await ex<DnsCredentialRow[]>`
    INSERT INTO dns_credentials (id, user_id, team_id, provider, display_name, settings, secret_sealed)
    VALUES (${id}, ${c.user_id}, ${c.team_id}, ${c.provider}, ${c.display_name}, ${ex.json(c.settings as never)}, ${seal(id)})
    RETURNING *`;
  return row!;
}

/** One credential, or null. */
export async function getDnsCredential(ex: SqlExecutor, id: number): Promise<DnsCredentialRow | null> {
  const [row] = await ex<DnsCredentialRow[]>`SELECT * FROM dns_credentials WHERE id = ${id}`;
  return row ?? null;
}

/** The credentials in `scope`, newest first, with the total. */
export async function listDnsCredentials(ex: SqlExecutor, scope: OwnerScope, limit: number, offset: number): Promise<{ rows: DnsCredentialRow[]; total: number }> {
  const [rows, [count]] = await Promise.all([
    ex<DnsCredentialRow[]>`SELECT * FROM dns_credentials WHERE ${ownedBy(ex, scope)} ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}`,
    ex<{ n: number }[]>`SELECT count(*)::int AS n FROM dns_credentials WHERE ${ownedBy(ex, scope)}`,
  ]);
  return { rows, total: count!.n };
}

/** Record a health check's outcome. */
export async function setDnsCredentialHealth(ex: SqlExecutor, id: number, status: 'valid' | 'invalid', error: string | null): Promise<DnsCredentialRow | null> {
  const [row] = await ex<DnsCredentialRow[]>`
    UPDATE dns_credentials SET health_status = ${status}, health_error = ${error}, health_checked_at = now() WHERE id = ${id} RETURNING *`;
  return row ?? null;
}

/** Revoke a credential: its sealed secret is wiped (no longer usable), the record stays. @returns the row, or null when already revoked or absent */
export async function revokeDnsCredential(ex: SqlExecutor, id: number): Promise<DnsCredentialRow | null> {
  const [row] = await ex<DnsCredentialRow[]>`
    UPDATE dns_credentials SET revoked_at = now(), secret_sealed = '', health_status = 'unknown' WHERE id = ${id} AND revoked_at IS NULL RETURNING *`;
  return row ?? null;
}

/**
 * Claim up to `limit` live credentials whose health was last checked more than `every_s` ago
 * (never first), FOR UPDATE SKIP LOCKED, marking them checked now so other instances skip them.
 */
export async function claimHealthChecks(ex: SqlExecutor, every_s: number, limit: number): Promise<DnsCredentialRow[]> {
  return ex<DnsCredentialRow[]>`
    UPDATE dns_credentials SET health_checked_at = now() WHERE id IN (
      SELECT id FROM dns_credentials WHERE revoked_at IS NULL
        AND (health_checked_at IS NULL OR health_checked_at < now() - make_interval(secs => ${every_s}))
      ORDER BY health_checked_at NULLS FIRST LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING *`;
}
