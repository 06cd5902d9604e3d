import { LEADERBOARD_MOVES, newId, type LeaderboardStatus } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { ATTESTATION_RETRIES_MAX, signReport, type SignedReport } from '../attestation/sign.js';
import { computeFigures, monthRange } from './compute.js';
import { findReport, insertReport, moveReport, setErrata, updateDraftFigures, type LeaderboardReportRow } from './leaderboards.db.js';
import { renderErrataPdf, renderLeaderboardPdf } from './report-pdf.js';

type Deps = Pick<AppDeps, 'sql' | 'config'>;

/** Sign `pdf` as report `report_id` through the one signing module, retried up to 3 times (attestation/sign.ts). */
async function signWithRetries(deps: Deps, report_id: string, pdf: Uint8Array, now: Date): Promise<SignedReport> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await signReport(deps, report_id, pdf, attempt, now);
    } catch (err) {
      if (attempt >= ATTESTATION_RETRIES_MAX) throw err;
    }
  }
}

/**
 * Create the draft report of `year`-`month` with its figures computed now (compute.ts).
 * @throws ApiError VALIDATION_FAILED when the month has not begun; CONFLICT when a report of that
 *   month exists that is not archived
 */
export async function createReport(deps: Deps, year: number, month: number, now: Date): Promise<LeaderboardReportRow> {
  if (monthRange(year, month).start >= now) {
    throw new ApiError('VALIDATION_FAILED', `${year}-${String(month).padStart(2, '0')} has not begun: there is nothing to report yet`, { fields: [{ path: 'period_month', message: 'the month has not begun' }] });
  }
  const figures = await computeFigures(deps.sql, deps.config, year, month, now);
  const row = await insertReport(deps.sql, { id: newId('leaderboard_report'), period_year: year, period_month: month, ...figures });
  if (!row) throw new ApiError('CONFLICT', `a report of ${year}-${month} exists that is not archived: recompute or archive it`, { period_year: year, period_month: month });
  return row;
}

/** Recompute a draft's figures (new data, opt-outs decided since). @throws ApiError CONFLICT unless it is a draft */
export async function recomputeReport(deps: Deps, row: LeaderboardReportRow, now: Date): Promise<LeaderboardReportRow> {
  if (row.status !== 'draft') throw new ApiError('CONFLICT', `only a draft is recomputed; this report is ${row.status}`, { status: row.status });
  const figures = await computeFigures(deps.sql, deps.config, row.period_year, row.period_month, now);
  const moved = await updateDraftFigures(deps.sql, row.id, figures);
  if (!moved) throw new ApiError('CONFLICT', 'the report left draft meanwhile');
  return moved;
}

/**
 * Move report `row` to `to` (docs/api/leaderboards.md "States"; {@link LEADERBOARD_MOVES}).
 * Going to review renders its PDF and signs it (the document reviewers read is the one published);
 * back to draft drops it; publishing stamps `published_at`.
 * @throws ApiError CONFLICT for a move the table does not allow, or when another move won the race
 */
export async function moveReportTo(deps: Deps, row: LeaderboardReportRow, to: LeaderboardStatus, now: Date): Promise<LeaderboardReportRow> {
  const allowed = LEADERBOARD_MOVES[row.status];
  if (!allowed.includes(to)) {
    throw new ApiError('CONFLICT', `a ${row.status} report cannot move to ${to}${allowed.length ? ` (only to ${allowed.join(', ')})` : ''}`, { status: row.status, to, allowed });
  }
  let signed: SignedReport | undefined;
  if (to === 'reviewing') signed = await signWithRetries(deps, row.id, await renderLeaderboardPdf(deps.config, row, now), now);
  const moved = await moveReport(deps.sql, row.id, row.status, to, signed && { pdf: signed.pdf, content_hash: signed.content_hash, signed_at: signed.signed_at });
  if (!moved) throw new ApiError('CONFLICT', 'the report was moved meanwhile: read it again', { status: (await findReport(deps.sql, row.id))?.status ?? null });
  return moved;
}

/**
 * Correct published (or archived) report `row` with an errata notice: the figures are computed
 * again now, a signed errata PDF (report id `<id>:errata` in the attestation records) states the
 * reason and the corrected figures; the original report and its PDF stay as they are.
 * @throws ApiError CONFLICT when the report is not published or archived, or already has an errata notice
 */
export async function correctReport(deps: Deps, row: LeaderboardReportRow, reason: string, now: Date): Promise<LeaderboardReportRow> {
  if (row.status !== 'published' && row.status !== 'archived') throw new ApiError('CONFLICT', `only a published report is corrected by errata; this one is ${row.status}`, { status: row.status });
  if (row.has_errata_pdf) throw new ApiError('CONFLICT', 'this report already has an errata notice', { errata_at: row.errata_at?.toISOString() ?? null });
  const corrected = { ...row, ...(await computeFigures(deps.sql, deps.config, row.period_year, row.period_month, now)) };
  const signed = await signWithRetries(deps, `${row.id}:errata`, await renderErrataPdf(deps.config, row, reason, corrected, now), now);
  const done = await setErrata(deps.sql, row.id, reason, signed.pdf, now);
  if (!done) throw new ApiError('CONFLICT', 'an errata notice was attached meanwhile');
  return done;
}
