import type { LeaderboardEntry, LeaderboardStatus } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';

/*
 * Leaderboard reports and leaderboard monitors (migration 0084). Status moves are
 * compare-and-set on the current status, so two administrators moving one report at once cannot
 * both succeed.
 */

/** A report row; `pdf` and `errata_pdf` are read only by {@link reportPdf}. */
export interface LeaderboardReportRow {
  id: string;
  status: LeaderboardStatus;
  period_year: number;
  period_month: number;
  methodology_version: string;
  entries: LeaderboardEntry[];
  excluded_vendors: string[];
  data_from: Date;
  data_to: Date;
  computed_at: Date;
  content_hash: string | null;
  signed_at: Date | null;
  published_at: Date | null;
  has_pdf: boolean;
  has_errata_pdf: boolean;
  errata_reason: string | null;
  errata_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = (sql: SqlExecutor) => sql`id, status, period_year, period_month, methodology_version, entries, excluded_vendors, data_from, data_to,
  computed_at, content_hash, signed_at, published_at, pdf IS NOT NULL AS has_pdf, errata_pdf IS NOT NULL AS has_errata_pdf, errata_reason, errata_at, created_at, updated_at`;

/** Figures of a report as computed (compute.ts). */
export interface ReportFigures {
  entries: LeaderboardEntry[];
  excluded_vendors: string[];
  data_from: Date;
  data_to: Date;
  computed_at: Date;
  methodology_version: string;
}

/** Insert a draft. @returns null when a live (not archived) report of that month exists */
export async function insertReport(sql: SqlExecutor, r: { id: string; period_year: number; period_month: number } & ReportFigures): Promise<LeaderboardReportRow | null> {
  const rows = await sql<LeaderboardReportRow[]>`
    INSERT INTO leaderboard_reports (id, period_year, period_month, methodology_version, entries, excluded_vendors, data_from, data_to, computed_at)
    VALUES (${r.id}, ${r.period_year}, ${r.period_month}, ${r.methodology_version}, ${sql.json(r.entries as never)}, ${r.excluded_vendors},
      ${r.data_from}, ${r.data_to}, ${r.computed_at})
    ON CONFLICT (period_year, period_month) WHERE status <> 'archived' DO NOTHING
    RETURNING ${COLUMNS(sql)}`;
  return rows[0] ?? null;
}

/** Replace a draft's figures. @returns null when the report is not (or no longer) a draft */
export async function updateDraftFigures(sql: SqlExecutor, id: string, f: ReportFigures): Promise<LeaderboardReportRow | null> {
  const rows = await sql<LeaderboardReportRow[]>`
    UPDATE leaderboard_reports SET entries = ${sql.json(f.entries as never)}, excluded_vendors = ${f.excluded_vendors}, data_from = ${f.data_from},
      data_to = ${f.data_to}, computed_at = ${f.computed_at}, methodology_version = ${f.methodology_version}, updated_at = now()
    WHERE id = ${id} AND status = 'draft' RETURNING ${COLUMNS(sql)}`;
  return rows[0] ?? null;
}

/** The report `id`, or null. */
export async function findReport(sql: SqlExecutor, id: string): Promise<LeaderboardReportRow | null> {
  const rows = await sql<LeaderboardReportRow[]>`SELECT ${COLUMNS(sql)} FROM leaderboard_reports WHERE id = ${id}`;
  return rows[0] ?? null;
}

/** Reports in `statuses`, newest period first, one page. */
export async function listReports(sql: SqlExecutor, statuses: readonly LeaderboardStatus[], limit: number, offset: number): Promise<{ rows: LeaderboardReportRow[]; total: number }> {
  const [rows, [count]] = await Promise.all([
    sql<LeaderboardReportRow[]>`SELECT ${COLUMNS(sql)} FROM leaderboard_reports WHERE status = ANY(${statuses as string[]}::text[])
      ORDER BY period_year DESC, period_month DESC, id DESC LIMIT ${limit} OFFSET ${offset}`,
    sql<{ n: number }[]>`SELECT count(*)::int AS n FROM leaderboard_reports WHERE status = ANY(${statuses as string[]}::text[])`,
  ]);
  return { rows, total: count!.n };
}

/**
 * Move report `id` from `from` to `to`. Going to `reviewing` stores the signed PDF given; going
 * back to `draft` drops it; going to `published` stamps `published_at`.
 * @returns the row as moved, or null when the report is no longer in `from`
 */
export async function moveReport(sql: SqlExecutor, id: string, from: LeaderboardStatus, to: LeaderboardStatus, signed?: { pdf: Buffer; content_hash: string; signed_at: Date }): Promise<LeaderboardReportRow | null> {
  const rows = await sql<LeaderboardReportRow[]>`
    UPDATE leaderboard_reports SET status = ${to}, updated_at = now(),
      pdf = ${to === 'reviewing' ? signed!.pdf : to === 'draft' ? null : sql`pdf`},
      content_hash = ${to === 'reviewing' ? signed!.content_hash : to === 'draft' ? null : sql`content_hash`},
      signed_at = ${to === 'reviewing' ? signed!.signed_at : to === 'draft' ? null : sql`signed_at`},
      published_at = ${to === 'published' ? sql`now()` : sql`published_at`}
    WHERE id = ${id} AND status = ${from} RETURNING ${COLUMNS(sql)}`;
  return rows[0] ?? null;
}

/** Attach the signed errata notice to a published or archived report without one. @returns null otherwise */
export async function setErrata(sql: SqlExecutor, id: string, reason: string, pdf: Buffer, at: Date): Promise<LeaderboardReportRow | null> {
  const rows = await sql<LeaderboardReportRow[]>`
    UPDATE leaderboard_reports SET errata_pdf = ${pdf}, errata_reason = ${reason}, errata_at = ${at}, updated_at = now()
    WHERE id = ${id} AND status IN ('published', 'archived') AND errata_pdf IS NULL RETURNING ${COLUMNS(sql)}`;
  return rows[0] ?? null;
}

/** Delete a draft. @returns false when `id` is not a draft */
export async function deleteDraft(sql: SqlExecutor, id: string): Promise<boolean> {
  return (await sql`DELETE FROM leaderboard_reports WHERE id = ${id} AND status = 'draft' RETURNING id`).length > 0;
}

/** The signed PDF (`report`) or errata notice (`errata`) of report `id`, or null. */
export async function reportPdf(sql: SqlExecutor, id: string, which: 'report' | 'errata'): Promise<Buffer | null> {
  const rows = await sql<{ pdf: Buffer | null }[]>`SELECT ${which === 'report' ? sql`pdf` : sql`errata_pdf`} AS pdf FROM leaderboard_reports WHERE id = ${id}`;
  return rows[0]?.pdf ?? null;
}

/** A leaderboard monitor with what the report and the admin list show of its monitor. */
export interface LeaderboardMonitorRow {
  monitor_id: string;
  monitor_name: string;
  type: string;
  target: string;
  vendor_name: string;
  category: string;
  created_at: Date;
  updated_at: Date;
}

/** Mark monitor `monitor_id` (or change its mark). @returns false when the monitor does not exist */
export async function upsertLeaderboardMonitor(sql: SqlExecutor, monitor_id: string, vendor_name: string, category: string): Promise<boolean> {
  const rows = await sql`
    INSERT INTO leaderboard_monitors (monitor_id, vendor_name, category)
    SELECT id, ${vendor_name}, ${category} FROM monitors WHERE id = ${monitor_id}
    ON CONFLICT (monitor_id) DO UPDATE SET vendor_name = EXCLUDED.vendor_name, category = EXCLUDED.category, updated_at = now()
    RETURNING monitor_id`;
  return rows.length > 0;
}

/** Unmark monitor `monitor_id`. @returns false when it was not marked */
export async function deleteLeaderboardMonitor(sql: SqlExecutor, monitor_id: string): Promise<boolean> {
  return (await sql`DELETE FROM leaderboard_monitors WHERE monitor_id = ${monitor_id} RETURNING monitor_id`).length > 0;
}

/** Every leaderboard monitor (or only `monitor_id`), by category, vendor, then monitor. */
export async function listLeaderboardMonitors(sql: SqlExecutor, monitor_id?: string): Promise<LeaderboardMonitorRow[]> {
  return sql<LeaderboardMonitorRow[]>`
    SELECT l.monitor_id, m.name AS monitor_name, m.type, m.target, l.vendor_name, l.category, l.created_at, l.updated_at
    FROM leaderboard_monitors l JOIN monitors m ON m.id = l.monitor_id
    ${monitor_id ? sql`WHERE l.monitor_id = ${monitor_id}` : sql``}
    ORDER BY l.category, lower(l.vendor_name), l.monitor_id`;
}
