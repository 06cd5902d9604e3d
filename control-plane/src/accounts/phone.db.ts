import type { Sql } from '../db/sql.js';

/** A phone binding under way: the number, the code's hash and how many wrong codes were tried. */
export interface PhoneVerificationRow {
  user_id: string;
  phone: string;
  code_hash: string;
  attempts: number;
  created_at: Date;
  expires_at: Date;
  expired: boolean;
}

/**
 * Start (or restart) the phone binding of `user_id`: stores `phone` and the hash of its code,
 * valid `ttl_s`, with no attempts yet, unless the last code was sent less than `resend_s` ago
 * (one statement, so two concurrent requests cannot both send).
 * @returns the row, or `{ too_soon: retry_after_s }`
 */
export async function startPhoneVerification(
  sql: Sql, v: { user_id: string; phone: string; code_hash: string; ttl_s: number; resend_s: number },
): Promise<PhoneVerificationRow | { too_soon: number }> {
  const rows = await sql<PhoneVerificationRow[]>`
    INSERT INTO phone_verifications (user_id, phone, code_hash, expires_at)
    VALUES (${v.user_id}, ${v.phone}, ${v.code_hash}, now() + make_interval(secs => ${v.ttl_s}))
    ON CONFLICT (user_id) DO UPDATE SET phone = EXCLUDED.phone, code_hash = EXCLUDED.code_hash, attempts = 0,
      created_at = now(), expires_at = EXCLUDED.expires_at
    WHERE phone_verifications.created_at <= now() - make_interval(secs => ${v.resend_s})
    RETURNING *, false AS expired`;
  if (rows[0]) return rows[0];
  const [wait] = await sql<{ wait_s: number }[]>`
    SELECT ceil(extract(epoch FROM created_at + make_interval(secs => ${v.resend_s}) - now()))::int AS wait_s
    FROM phone_verifications WHERE user_id = ${v.user_id}`;
  return { too_soon: Math.max(1, wait?.wait_s ?? 1) };
}

/** The pending phone binding of `user_id` (expired ones included, `expired` says so), or null. */
export async function findPhoneVerification(sql: Sql, user_id: string): Promise<PhoneVerificationRow | null> {
  const rows = await sql<PhoneVerificationRow[]>`
    SELECT *, expires_at <= now() AS expired FROM phone_verifications WHERE user_id = ${user_id}`;
  return rows[0] ?? null;
}

/**
 * Count one attempt at the code of `user_id`'s binding, unless `max_attempts` were already used.
 * @returns the attempts used now, or null when none are left (or there is no binding)
 */
export async function countPhoneAttempt(sql: Sql, user_id: string, max_attempts: number): Promise<number | null> {
  const rows = await sql<{ attempts: number }[]>`
    UPDATE phone_verifications SET attempts = attempts + 1
    WHERE user_id = ${user_id} AND attempts < ${max_attempts} RETURNING attempts`;
  return rows[0]?.attempts ?? null;
}

/** Forget the pending binding of `user_id` (used, expired, abandoned, or its SMS failed). */
export async function deletePhoneVerification(sql: Sql, user_id: string): Promise<void> {
  await sql`DELETE FROM phone_verifications WHERE user_id = ${user_id}`;
}

/**
 * Bind the number of the pending binding whose code hash is `code_hash` to its account and end
 * the binding, in one transaction, unless another account has bound the number meanwhile.
 * @returns the bound number; `{ taken }` when another account holds it (the binding is ended);
 *   null when the binding is gone or its code changed meanwhile
 */
export async function bindPhone(sql: Sql, user_id: string, code_hash: string): Promise<string | { taken: string } | null> {
  return sql.begin(async (tx) => {
    const [v] = await tx<{ phone: string }[]>`
      DELETE FROM phone_verifications WHERE user_id = ${user_id} AND code_hash = ${code_hash} AND expires_at > now() RETURNING phone`;
    if (!v) return null;
    // One account per number: binds of one number are serialised, then checked.
    await tx`SELECT pg_advisory_xact_lock(hashtext(${'phone:' + v.phone}))`;
    if (await phoneBoundElsewhere(tx as unknown as Sql, v.phone, user_id)) return { taken: v.phone };
    await tx`UPDATE users SET phone = ${v.phone}, updated_at = now() WHERE id = ${user_id}`;
    return v.phone;
  }) as Promise<string | { taken: string } | null>;
}

/** Whether `phone` (E.164) is bound to an account other than `user_id` (one being deleted counts until purged). */
export async function phoneBoundElsewhere(sql: Sql, phone: string, user_id: string): Promise<boolean> {
  const rows = await sql`SELECT 1 FROM users WHERE phone = ${phone} AND id <> ${user_id} LIMIT 1`;
  return rows.length > 0;
}

/** Unbind the phone of `user_id` and drop a pending binding. @returns whether a phone was bound */
export async function unbindPhone(sql: Sql, user_id: string): Promise<boolean> {
  return sql.begin(async (tx) => {
    await tx`DELETE FROM phone_verifications WHERE user_id = ${user_id}`;
    const rows = await tx`UPDATE users SET phone = NULL, updated_at = now() WHERE id = ${user_id} AND phone IS NOT NULL RETURNING id`;
    return rows.length > 0;
  }) as Promise<boolean>;
}
