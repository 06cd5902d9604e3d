import type { Sql } from '../db/sql.js';

/** A users row as administrators see it (docs/api/accounts.md "Administration"). */
export interface AdminAccountRow {
  id: string;
  email: string;
  email_verified: boolean;
  is_admin: boolean;
  /** The verified address is in VANTAGE_ADMIN_EMAILS. */
  admin_email_listed: boolean;
  status: string;
  created_at: Date;
}

function listed(sql: Sql, admin_emails: readonly string[]) {
  const emails = admin_emails.map((e) => e.toLowerCase());
  return sql`(email_verified AND lower(email) = ANY(${emails}::text[]))`;
}

/** Accounts, oldest first, a page of `limit` from `offset`, with the total. */
export async function listAccounts(sql: Sql, admin_emails: readonly string[], limit: number, offset: number): Promise<{ rows: AdminAccountRow[]; total: number }> {
  const [rows, count] = await Promise.all([
    sql<AdminAccountRow[]>`
      SELECT id, email, email_verified, is_admin, ${listed(sql, admin_emails)} AS admin_email_listed, status, created_at
      FROM users ORDER BY created_at, id LIMIT ${limit} OFFSET ${offset}`,
    sql<{ total: number }[]>`SELECT count(*)::int AS total FROM users`,
  ]);
  return { rows, total: count[0]!.total };
}

/** One account, or null. */
export async function findAccount(sql: Sql, admin_emails: readonly string[], id: string): Promise<AdminAccountRow | null> {
  const rows = await sql<AdminAccountRow[]>`
    SELECT id, email, email_verified, is_admin, ${listed(sql, admin_emails)} AS admin_email_listed, status, created_at
    FROM users WHERE id = ${id}`;
  return rows[0] ?? null;
}

/**
 * Set an account's administrator mark and/or status (only the keys given).
 * @returns false when there is no such account
 */
export async function updateAccount(sql: Sql, id: string, changes: { is_admin?: boolean; status?: 'active' | 'disabled' }): Promise<boolean> {
  const keys = (['is_admin', 'status'] as const).filter((k) => changes[k] !== undefined);
  const rows = await sql`
    UPDATE users SET ${sql(changes as never, ...(keys as never[]))}, updated_at = now() WHERE id = ${id} RETURNING id`;
  return rows.length > 0;
}
