import type { Sql } from '../db/sql.js';

/** What an e-mail code is for: logging in, or confirming a sensitive action of a signed-in account. */
export type OtpPurpose = 'login' | 'action';

/** An email_otps row as the checks need it. */
export interface OtpRow {
  id: string;
  code_hash: string;
  attempts: number;
  expired: boolean;
  used: boolean;
}

/**
 * Store a new code of `purpose` for `user_id`, valid `ttl_s` seconds, and mark the earlier
 * unused ones used (a new code supersedes them), in one transaction.
 */
export async function insertOtp(sql: Sql, o: { id: string; user_id: string; purpose: OtpPurpose; code_hash: string; ttl_s: number }): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`UPDATE email_otps SET used_at = now() WHERE user_id = ${o.user_id} AND purpose = ${o.purpose} AND used_at IS NULL`;
    await tx`INSERT INTO email_otps (id, user_id, purpose, code_hash, expires_at)
      VALUES (${o.id}, ${o.user_id}, ${o.purpose}, ${o.code_hash}, now() + make_interval(secs => ${o.ttl_s}))`;
  });
}

/** Outcome of presenting a code: accepted, or why not. */
export type OtpCheck = 'ok' | 'none' | 'used' | 'expired' | 'exceeded' | 'wrong';

/**
 * Check a presented code against `user_id`'s newest code of `purpose`, locked for the
 * transaction so two presentations cannot both use it: `matches(row)` compares the hash. A
 * match marks it used (`ok`); a miss counts an attempt (`wrong`). A code with `max_attempts`
 * misses already answers `exceeded` whatever is presented; an expired one `expired`; a used or
 * superseded one `used`; none at all `none`.
 */
export async function consumeOtp(sql: Sql, user_id: string, purpose: OtpPurpose, max_attempts: number, matches: (row: OtpRow) => boolean): Promise<OtpCheck> {
  return sql.begin(async (tx) => {
    const [row] = await tx<OtpRow[]>`
      SELECT id, code_hash, attempts, expires_at <= now() AS expired, used_at IS NOT NULL AS used
      FROM email_otps WHERE user_id = ${user_id} AND purpose = ${purpose}
      ORDER BY created_at DESC, id DESC LIMIT 1 FOR UPDATE`;
    if (!row) return 'none';
    if (row.used) return 'used';
    if (row.attempts >= max_attempts) return 'exceeded';
    if (row.expired) return 'expired';
    if (matches(row)) {
      await tx`UPDATE email_otps SET used_at = now() WHERE id = ${row.id}`;
      return 'ok';
    }
    await tx`UPDATE email_otps SET attempts = attempts + 1 WHERE id = ${row.id}`;
    return 'wrong';
  }) as Promise<OtpCheck>;
}
