import { DateTime } from 'luxon';
import type { Mailer } from '../contracts.js';
import type { Sql } from '../db/sql.js';
import { renderEmail, type RenderedEmail } from '../email/layout.js';
import { claimNotice, noticeCandidates, type NoticeWindow } from './maintenance-notices.db.js';
import { nextOccurrenceStart } from './windows.js';

/*
 * Advance notice of maintenance windows (docs/api/alerting.md "Maintenance windows"): the creator
 * of a personal window, or every member (role member or above) of a team window's team, gets an
 * e-mail `advance_notice_minutes` before each occurrence starts, recurrences included, once per
 * (window, occurrence start), its times in the owner's time zone (the team's for a team window). The e-mail goes through the Mailer (the delivery engine's
 * `email` channel), queued in the transaction that records the notice.
 */

const BATCH = 200;

const SCOPES = { all: 'all your monitors', monitor: 'the monitors', group: 'the monitor groups', tag: 'the monitors tagged' } as const;

/** The advance-notice e-mail of one occurrence (`starts_at`/`ends_at`) of window `w`, written at `now`. */
export function maintenanceNoticeEmail(w: NoticeWindow, starts_at: Date, ends_at: Date, now: Date): RenderedEmail {
  const local = (d: Date) => DateTime.fromJSDate(d, { zone: w.owner_tz }).toFormat('yyyy-MM-dd HH:mm');
  const minutes = Math.max(1, Math.round((starts_at.getTime() - now.getTime()) / 60_000));
  const title = w.title ?? 'Maintenance';
  const scope = w.scope_type === 'all' ? (w.team_id ? 'all the team\'s monitors' : SCOPES.all) : `${SCOPES[w.scope_type]} ${w.scope_ids.join(', ')}`;
  const repeats = w.recurrence === 'none' ? null
    : `It repeats ${w.recurrence}${w.recurrence_until ? ` (last start ${local(w.recurrence_until)} ${w.owner_tz})` : ''}.`;
  return renderEmail({
    subject: `Maintenance in ${minutes} min: ${title}`,
    paragraphs: [
      `${w.team_id ? 'Your team\'s' : 'Your'} maintenance window "${title}" (${w.id}) starts at ${local(starts_at)} and ends at ${local(ends_at)} (${w.owner_tz}; ${starts_at.toISOString()} to ${ends_at.toISOString()}).`,
      `It covers ${scope}. While it runs, their alerts are recorded but send no notification, and their rounds are left out of uptime.`,
      ...(repeats ? [repeats] : []),
    ],
    footer: `You receive this e-mail because ${w.team_id ? 'you are a member of the window\'s team and ' : ''}the window asks for ${w.advance_notice_minutes} minutes of advance notice. Change it with PATCH /v1/maintenance-windows/${w.id}.`,
  });
}

/**
 * Send the advance notices due at `now`: for each window whose next occurrence starts within its
 * notice, record (window, occurrence start) and queue the e-mail to each recipient in one transaction;
 * an occurrence already recorded is skipped. An occurrence already started gets none.
 * @returns how many occurrences were noticed (their e-mails queued, or logged without an SMTP server)
 */
export async function sendMaintenanceNotices(deps: { sql: Sql; mail: Mailer }, now: Date): Promise<number> {
  let sent = 0;
  for (const w of await noticeCandidates(deps.sql, now, BATCH)) {
    const tz = w.owner_tz || 'UTC';
    const starts_at = nextOccurrenceStart(w, tz, now);
    if (!starts_at || starts_at.getTime() - w.advance_notice_minutes * 60_000 > now.getTime()) continue;
    const ends_at = new Date(starts_at.getTime() + (w.ends_at.getTime() - w.starts_at.getTime()));
    sent += await deps.sql.begin(async (tx) => {
      if (!(await claimNotice(tx, w.id, starts_at, deps.mail.configured ? 'queued' : 'logged', now))) return 0;
      const mail = maintenanceNoticeEmail({ ...w, owner_tz: tz }, starts_at, ends_at, now);
      for (const r of w.recipients) await deps.mail.send({ to: r.email, ...mail, user_id: r.user_id, kind: 'maintenance.notice' }, tx);
      return 1;
    });
  }
  return sent;
}
