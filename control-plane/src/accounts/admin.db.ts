import type { Sql } from '../db/sql.js';

/**
 * Whether user `user_id` is an operator administrator: marked `is_admin` in the database, or its
 * verified e-mail is one of `admin_emails` (VANTAGE_ADMIN_EMAILS, compared case-insensitively; an
 * unverified address does not count, so nobody becomes administrator by registering the listed
 * address first). An unknown or disabled user is not.
 */
export async function isAdminUser(sql: Sql, user_id: string, admin_emails: readonly string[]): Promise<boolean> {
  const emails = admin_emails.map((e) => e.toLowerCase());
  const rows = await sql<{ admin: boolean }[]>`
    SELECT (is_admin OR (email_verified AND lower(email) = ANY(${emails}::text[]))) AS admin FROM users
    WHERE id = ${user_id} AND status = 'active'`;
  return rows[0]?.admin === true;
}

/** Mark or unmark user `user_id` as administrator. @returns false when the user does not exist */
export async function setAdminUser(sql: Sql, user_id: string, is_admin: boolean): Promise<boolean> {
  const rows = await sql`UPDATE users SET is_admin = ${is_admin}, updated_at = now() WHERE id = ${user_id} RETURNING id`;
  return rows.length > 0;
}

/** One admin_audit row: who did what to which id (docs/operators/self-hosting.md "Administrators"). */
export interface AdminAuditEntry {
  actor_user_id: string;
  /** Dotted action name, e.g. `account.create`, `node.platform`. */
  action: string;
  target_id: string | null;
  details?: Record<string, unknown>;
}

/** Append an entry to the admin audit log. */
export async function insertAdminAudit(sql: Sql, e: AdminAuditEntry): Promise<void> {
  await sql`INSERT INTO admin_audit (actor_user_id, action, target_id, details)
    VALUES (${e.actor_user_id}, ${e.action}, ${e.target_id}, ${sql.json((e.details ?? {}) as never)})`;
}

/** The newest admin audit entries first, at most `limit` (1-500). */
export async function listAdminAudit(sql: Sql, limit: number): Promise<(AdminAuditEntry & { id: string; at: Date })[]> {
  return sql<(AdminAuditEntry & { id: string; at: Date })[]>`
    SELECT id::text AS id, at, actor_user_id, action, target_id, details FROM admin_audit
    ORDER BY at DESC, id DESC LIMIT ${limit}`;
}
