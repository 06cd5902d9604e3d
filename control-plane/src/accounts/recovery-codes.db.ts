import type { Sql } from '../db/sql.js';

/** Replace `user_id`'s recovery codes with these hashes (earlier codes, used or not, stop working), in one transaction. */
export async function replaceRecoveryCodes(sql: Sql, user_id: string, hashes: string[]): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`DELETE FROM recovery_codes WHERE user_id = ${user_id}`;
    await tx`INSERT INTO recovery_codes ${tx(hashes.map((code_hash) => ({ user_id, code_hash })))}`;
  });
}

/** Forget every recovery code of `user_id` (TOTP turned off). */
export async function deleteRecoveryCodes(sql: Sql, user_id: string): Promise<void> {
  await sql`DELETE FROM recovery_codes WHERE user_id = ${user_id}`;
}

/** Mark the unused code with this hash used. @returns true when there was one (one statement: a code works once, even raced) */
export async function markRecoveryCodeUsed(sql: Sql, user_id: string, code_hash: string): Promise<boolean> {
  const rows = await sql`UPDATE recovery_codes SET used_at = now() WHERE user_id = ${user_id} AND code_hash = ${code_hash} AND used_at IS NULL RETURNING 1`;
  return rows.length > 0;
}
