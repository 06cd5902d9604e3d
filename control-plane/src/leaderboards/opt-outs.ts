import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { renderEmail } from '../email/layout.js';
import { decideOptOut, type OptOutRow } from './opt-outs.db.js';

/**
 * Decide pending opt-out request `id` and queue the applicant's e-mail in the same transaction
 * (through the mailer: a delivery of the e-mail channel, so it is sent at least once or not at
 * all with a rolled-back decision). An approved vendor is left out of reports computed from then
 * on (docs/api/leaderboards.md "Opt-outs"); published reports are not changed.
 * @returns the decided row, or null when there is no such request
 * @throws ApiError CONFLICT when it was already decided
 */
export async function decide(deps: Pick<AppDeps, 'sql' | 'mail'>, id: string, d: { status: 'approved' | 'rejected'; decision_reason: string; decided_by: string }, current: OptOutRow): Promise<OptOutRow> {
  return deps.sql.begin(async (tx) => {
    const row = await decideOptOut(tx, id, d);
    if (!row) throw new ApiError('CONFLICT', `this request was already decided (${current.status})`, { status: current.status });
    const approved = row.status === 'approved';
    const mail = renderEmail({
      subject: `Your leaderboard opt-out request for ${row.vendor_name} was ${row.status}`,
      paragraphs: [
        `We have decided your request ${row.id} to leave ${row.vendor_name} out of the Vantage vendor leaderboards: it is ${row.status}.`,
        `Reason: ${row.decision_reason}`,
        approved
          ? 'Reports computed from now on leave this vendor out and list it among the excluded vendors. Reports already published are not changed.'
          : 'The vendor stays in the leaderboards. You may send a new request with further proof of identity.',
      ],
      footer: `You receive this because ${row.applicant_email} sent an opt-out request.`,
    });
    await deps.mail.send({ ...mail, to: row.applicant_email, user_id: null, kind: `leaderboard.opt_out.${row.status}` }, tx);
    return row;
  }) as Promise<OptOutRow>;
}
