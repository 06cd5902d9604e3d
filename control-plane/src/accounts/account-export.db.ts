import type { Sql } from '../db/sql.js';
import type { AccessKeyRow } from './api-keys.db.js';

/**
 * Passkey metadata of `user_id` (never the public key or credential id), oldest first; [] when
 * this deployment has no passkeys table.
 */
export async function passkeysMetadata(sql: Sql, user_id: string): Promise<Record<string, unknown>[]> {
  const [t] = await sql<{ ok: boolean }[]>`SELECT to_regclass('passkeys') IS NOT NULL AS ok`;
  if (!t?.ok) return [];
  return sql`
    SELECT id, name, device_type, backed_up, transports, created_at, last_used_at
    FROM passkeys WHERE user_id = ${user_id} ORDER BY created_at, id`;
}

/** Linked single sign-on identities of `user_id` (provider, subject, e-mail, times), oldest first; [] without the table. */
export async function identitiesMetadata(sql: Sql, user_id: string): Promise<Record<string, unknown>[]> {
  const [t] = await sql<{ ok: boolean }[]>`SELECT to_regclass('oauth_identities') IS NOT NULL AS ok`;
  if (!t?.ok) return [];
  return sql`
    SELECT id, provider, subject, email, created_at, last_login_at
    FROM oauth_identities WHERE user_id = ${user_id} ORDER BY created_at, id`;
}

/** Every API key and PAT row of `user_id` (revoked ones included), oldest first; the caller shows metadata only. */
export async function allAccessKeys(sql: Sql, user_id: string): Promise<AccessKeyRow[]> {
  return sql<AccessKeyRow[]>`SELECT * FROM access_keys WHERE user_id = ${user_id} ORDER BY created_at, id`;
}

/** Team memberships of `user_id`: team id and name, role and since when, oldest first. */
export async function membershipsOf(sql: Sql, user_id: string): Promise<Record<string, unknown>[]> {
  return sql`
    SELECT t.id AS team_id, t.name AS team_name, m.role, m.created_at AS joined_at
    FROM team_members m JOIN teams t ON t.id = m.team_id WHERE m.user_id = ${user_id} ORDER BY m.created_at, t.id`;
}
