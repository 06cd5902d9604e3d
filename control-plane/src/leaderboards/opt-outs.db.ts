import type { SqlExecutor } from '../contracts.js';

/* Vendors' opt-out requests (migration 0084): pending until an administrator decides once. */

/** A stored opt-out request. */
export interface OptOutRow {
  id: string;
  vendor_name: string;
  applicant_email: string;
  identity_proof_url: string;
  applicant_organization: string | null;
  contact_phone: string | null;
  reason: string | null;
  status: 'pending' | 'approved' | 'rejected';
  decided_at: Date | null;
  decided_by: string | null;
  decision_reason: string | null;
  created_at: Date;
}

/** Store a new (pending) request. */
export async function insertOptOut(sql: SqlExecutor, o: Pick<OptOutRow, 'id' | 'vendor_name' | 'applicant_email' | 'identity_proof_url' | 'applicant_organization' | 'contact_phone' | 'reason'>): Promise<OptOutRow> {
  const [row] = await sql<OptOutRow[]>`
    INSERT INTO leaderboard_opt_outs (id, vendor_name, applicant_email, identity_proof_url, applicant_organization, contact_phone, reason)
    VALUES (${o.id}, ${o.vendor_name}, ${o.applicant_email}, ${o.identity_proof_url}, ${o.applicant_organization}, ${o.contact_phone}, ${o.reason})
    RETURNING *`;
  return row!;
}

/** Requests, newest first, optionally only those in `status`. */
export async function listOptOuts(sql: SqlExecutor, status: OptOutRow['status'] | undefined, limit: number, offset: number): Promise<{ rows: OptOutRow[]; total: number }> {
  const where = status ? sql`WHERE status = ${status}` : sql``;
  const [rows, [count]] = await Promise.all([
    sql<OptOutRow[]>`SELECT * FROM leaderboard_opt_outs ${where} ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}`,
    sql<{ n: number }[]>`SELECT count(*)::int AS n FROM leaderboard_opt_outs ${where}`,
  ]);
  return { rows, total: count!.n };
}

/** The request `id`, or null. */
export async function findOptOut(sql: SqlExecutor, id: string): Promise<OptOutRow | null> {
  const rows = await sql<OptOutRow[]>`SELECT * FROM leaderboard_opt_outs WHERE id = ${id}`;
  return rows[0] ?? null;
}

/** Decide a pending request. @returns the decided row, or null when it was not pending */
export async function decideOptOut(sql: SqlExecutor, id: string, d: { status: 'approved' | 'rejected'; decision_reason: string; decided_by: string }): Promise<OptOutRow | null> {
  const rows = await sql<OptOutRow[]>`
    UPDATE leaderboard_opt_outs SET status = ${d.status}, decision_reason = ${d.decision_reason}, decided_by = ${d.decided_by}, decided_at = now()
    WHERE id = ${id} AND status = 'pending' RETURNING *`;
  return rows[0] ?? null;
}

/** Lower-cased vendor names with an approved opt-out. */
export async function approvedOptOutVendors(sql: SqlExecutor): Promise<Set<string>> {
  const rows = await sql<{ v: string }[]>`SELECT DISTINCT lower(vendor_name) AS v FROM leaderboard_opt_outs WHERE status = 'approved'`;
  return new Set(rows.map((r) => r.v));
}
