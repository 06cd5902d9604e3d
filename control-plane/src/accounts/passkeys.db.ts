import type { Sql } from '../db/sql.js';

/** A passkeys row (migration 0053): a WebAuthn credential of one account. */
export interface PasskeyRow {
  id: string;
  user_id: string;
  /** base64url credential id, unique across accounts. */
  credential_id: string;
  /** COSE public key. */
  public_key: Uint8Array;
  /** Last signature counter seen (0 when the authenticator keeps none); bigint in SQL, a number here. */
  sign_count: number;
  transports: string[];
  device_type: 'singleDevice' | 'multiDevice';
  backed_up: boolean;
  name: string;
  created_at: Date;
  last_used_at: Date | null;
}

/** Columns read back everywhere (sign_count as a JS number: counters are 32-bit, WebAuthn Level 3 §6.1.1). */
const COLUMNS = (sql: Sql) => sql`id, user_id, credential_id, public_key, sign_count::float8 AS sign_count, transports, device_type, backed_up, name, created_at, last_used_at`;

/** A user's passkeys, oldest first. */
export async function listPasskeys(sql: Sql, user_id: string): Promise<PasskeyRow[]> {
  return sql<PasskeyRow[]>`SELECT ${COLUMNS(sql)} FROM passkeys WHERE user_id = ${user_id} ORDER BY created_at, id`;
}

/** The passkey whose credential id is `credential_id` (any account), with its owner's status, or null. */
export async function findPasskeyByCredentialId(sql: Sql, credential_id: string): Promise<(PasskeyRow & { user_status: string; deletion_scheduled_at: Date | null }) | null> {
  const rows = await sql<(PasskeyRow & { user_status: string; deletion_scheduled_at: Date | null })[]>`
    SELECT ${COLUMNS(sql)}, (SELECT status FROM users u WHERE u.id = passkeys.user_id) AS user_status,
      (SELECT deletion_scheduled_at FROM users u WHERE u.id = passkeys.user_id) AS deletion_scheduled_at
    FROM passkeys WHERE credential_id = ${credential_id}`;
  return rows[0] ?? null;
}

/**
 * Store a new passkey unless the account already holds `max` of them (one statement, so two
 * concurrent registrations cannot both pass the count).
 * @returns the row; `'limit'` when the account is full; `'taken'` when the credential id is registered already (any account)
 */
export async function insertPasskey(
  sql: Sql,
  p: { id: string; user_id: string; credential_id: string; public_key: Uint8Array; sign_count: number; transports: string[]; device_type: string; backed_up: boolean; name: string },
  max: number,
): Promise<PasskeyRow | 'limit' | 'taken'> {
  const rows = await sql<PasskeyRow[]>`
    INSERT INTO passkeys (id, user_id, credential_id, public_key, sign_count, transports, device_type, backed_up, name)
    SELECT ${p.id}, ${p.user_id}, ${p.credential_id}, ${Buffer.from(p.public_key)}, ${p.sign_count}, ${p.transports}::text[],
           ${p.device_type}, ${p.backed_up}, ${p.name}
    WHERE (SELECT count(*) FROM passkeys WHERE user_id = ${p.user_id}) < ${max}
    ON CONFLICT (credential_id) DO NOTHING
    RETURNING ${COLUMNS(sql)}`;
  if (rows[0]) return rows[0];
  const [taken] = await sql`SELECT 1 FROM passkeys WHERE credential_id = ${p.credential_id}`;
  return taken ? 'taken' : 'limit';
}

/** Rename a user's passkey. @returns the row, or null when the user has no passkey `id` */
export async function renamePasskey(sql: Sql, user_id: string, id: string, name: string): Promise<PasskeyRow | null> {
  const rows = await sql<PasskeyRow[]>`
    UPDATE passkeys SET name = ${name} WHERE id = ${id} AND user_id = ${user_id} RETURNING ${COLUMNS(sql)}`;
  return rows[0] ?? null;
}

/** Delete a user's passkey. @returns false when the user has no passkey `id` */
export async function deletePasskey(sql: Sql, user_id: string, id: string): Promise<boolean> {
  const rows = await sql`DELETE FROM passkeys WHERE id = ${id} AND user_id = ${user_id} RETURNING id`;
  return rows.length > 0;
}

/**
 * Record a verified login with passkey `id`: its new signature counter, backup state and
 * last_used_at, only while the counter still moves forward (or both are 0, an authenticator
 * keeping no counter; WebAuthn Level 3 §6.1.1), so two logins racing with one assertion cannot
 * both pass.
 * @returns false when the stored counter is already at or beyond `sign_count`
 */
export async function recordPasskeyUse(sql: Sql, id: string, sign_count: number, backed_up: boolean): Promise<boolean> {
  const rows = await sql`
    UPDATE passkeys SET sign_count = ${sign_count}, backed_up = ${backed_up}, last_used_at = now()
    WHERE id = ${id} AND (${sign_count}::bigint > sign_count OR (${sign_count}::bigint = 0 AND sign_count = 0))
    RETURNING id`;
  return rows.length > 0;
}

/** What a ceremony challenge is for (migration 0054). */
export type ChallengePurpose = 'registration' | 'authentication';

/**
 * Store a challenge valid `ttl_s` seconds, and drop expired ones (nobody can use them any more).
 * @param user_id registration: the account; authentication: the account named by e-mail, else null
 */
export async function insertChallenge(
  sql: Sql, c: { id: string; purpose: ChallengePurpose; user_id: string | null; challenge: string; ttl_s: number },
): Promise<void> {
  await sql`DELETE FROM webauthn_challenges WHERE expires_at < now()`;
  await sql`
    INSERT INTO webauthn_challenges (id, purpose, user_id, challenge, expires_at)
    VALUES (${c.id}, ${c.purpose}, ${c.user_id}, ${c.challenge}, now() + make_interval(secs => ${c.ttl_s}))`;
}

/**
 * Take challenge `id` for `purpose` (and, for a registration, for `user_id`): it is deleted in the
 * same statement, so it serves once whatever the ceremony's outcome.
 * @returns the challenge and the account it is bound to, or why not: `unknown` (never issued,
 *   already used, or issued for another purpose or account: those stay untouched) or `expired`
 */
export async function takeChallenge(
  sql: Sql, id: string, purpose: ChallengePurpose, user_id?: string,
): Promise<{ challenge: string; user_id: string | null } | 'unknown' | 'expired'> {
  const owner = user_id === undefined ? sql`` : sql`AND user_id = ${user_id}`;
  const rows = await sql<{ challenge: string; user_id: string | null; live: boolean }[]>`
    DELETE FROM webauthn_challenges WHERE id = ${id} AND purpose = ${purpose} ${owner}
    RETURNING challenge, user_id, expires_at > now() AS live`;
  const row = rows[0];
  if (!row) return 'unknown';
  return row.live ? { challenge: row.challenge, user_id: row.user_id } : 'expired';
}
