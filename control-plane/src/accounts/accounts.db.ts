import type { Sql } from '../db/sql.js';

/** A users row as the API needs it (profile fields of docs/api/accounts.md plus credentials). */
export interface UserRow {
  id: string;
  email: string;
  email_verified: boolean;
  password_hash: string;
  display_name: string | null;
  avatar_url: string | null;
  bio: string | null;
  locale: 'cn' | 'en' | 'tw';
  timezone: string;
  theme: 'system' | 'light' | 'dark';
  status: string;
  totp_secret: string | null;
  totp_pending: string | null;
  /** Optional login name, unique case-insensitively (docs/api/accounts.md "Username"). */
  username: string | null;
  /** Bound phone (E.164) once verified by SMS code; null when none. */
  phone: string | null;
  /** When a deleting account is purged (docs/api/accounts.md "Account lifecycle"); null otherwise. */
  deletion_scheduled_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** Profile fields a PATCH may set (docs/api/accounts.md); null clears display_name/bio. */
export interface ProfileChanges {
  display_name?: string | null;
  bio?: string | null;
  locale?: 'cn' | 'en' | 'tw';
  timezone?: string;
  theme?: 'system' | 'light' | 'dark';
}

/**
 * Insert a user. Emails are unique case-insensitively.
 * @returns the row, or null when the email is taken (unique violation)
 */
export async function insertUser(sql: Sql, u: { id: string; email: string; password_hash: string }): Promise<UserRow | null> {
  const rows = await sql<UserRow[]>`
    INSERT INTO users (id, email, password_hash) VALUES (${u.id}, ${u.email}, ${u.password_hash})
    ON CONFLICT ((lower(email))) DO NOTHING
    RETURNING *`;
  return rows[0] ?? null;
}

/** The user with this email (case-insensitive), or null. */
export async function findUserByEmail(sql: Sql, email: string): Promise<UserRow | null> {
  const rows = await sql<UserRow[]>`SELECT * FROM users WHERE lower(email) = lower(${email})`;
  return rows[0] ?? null;
}

/** The user with this `u_` id, or null. */
export async function findUserById(sql: Sql, id: string): Promise<UserRow | null> {
  const rows = await sql<UserRow[]>`SELECT * FROM users WHERE id = ${id}`;
  return rows[0] ?? null;
}

/**
 * Apply profile changes (only the keys present) and bump updated_at.
 * @returns the updated row, or null when the user does not exist
 */
export async function updateProfile(sql: Sql, id: string, changes: ProfileChanges): Promise<UserRow | null> {
  const keys = (['display_name', 'bio', 'locale', 'timezone', 'theme'] as const).filter((k) => k in changes);
  if (keys.length === 0) return findUserById(sql, id);
  const values: Record<string, unknown> = {};
  for (const k of keys) values[k] = changes[k] ?? null;
  const rows = await sql<UserRow[]>`
    UPDATE users SET ${sql(values as never, ...(keys as never[]))}, updated_at = now()
    WHERE id = ${id} RETURNING *`;
  return rows[0] ?? null;
}

/** Store a TOTP secret awaiting confirmation (2FA setup step 1), replacing an earlier one. */
export async function setTotpPending(sql: Sql, id: string, secret: string): Promise<void> {
  await sql`UPDATE users SET totp_pending = ${secret}, updated_at = now() WHERE id = ${id}`;
}

/** Make the pending secret the active one (2FA setup step 2, after a correct code). */
export async function enableTotp(sql: Sql, id: string, secret: string): Promise<void> {
  await sql`UPDATE users SET totp_secret = ${secret}, totp_pending = NULL, updated_at = now() WHERE id = ${id}`;
}

/** Turn 2FA off: forget both secrets. */
export async function disableTotp(sql: Sql, id: string): Promise<void> {
  await sql`UPDATE users SET totp_secret = NULL, totp_pending = NULL, updated_at = now() WHERE id = ${id}`;
}
