import type { Config } from '../config/index.js';
import type { EventPublisher, Mailer } from '../contracts.js';
import type { Sql } from '../db/sql.js';
import { renderEmail } from '../email/layout.js';
import { publicLink } from '../email/links.js';
import { claimExpiryNotices } from './certificates.db.js';

/*
 * Expiry notices of the certificates Vantage issued (docs/api/certificates.md "Expiry"): once a
 * certificate that is still `issued` has fewer than `certificates_expiry_notice_days` days left,
 * its owner's webhook endpoints get `certificate.expiring` and its creator an e-mail, once per
 * certificate, queued in the transaction that marks it noticed (so a notice is neither lost nor
 * sent twice, whatever the number of instances).
 */

/** Certificates one pass notices at most. */
const NOTICES_PER_PASS = 50;
const DAY_MS = 86_400_000;

export type ExpiryNoticeDeps = {
  sql: Sql;
  config: Pick<Config, 'certificates_expiry_notice_days' | 'public_url' | 'host' | 'port'>;
  events: EventPublisher;
  mail: Mailer;
};

/** One pass at `now`. @returns how many certificates were noticed */
export async function runExpiryNotices(deps: ExpiryNoticeDeps, now: Date = new Date()): Promise<number> {
  return deps.sql.begin(async (tx) => {
    const due = await claimExpiryNotices(tx, deps.config.certificates_expiry_notice_days, NOTICES_PER_PASS);
    for (const cert of due) {
      const id = Number(cert.id);
      const days_left = Math.floor((cert.not_after.getTime() - now.getTime()) / DAY_MS);
      const expires_at = cert.not_after.toISOString();
      await deps.events.publish({
        type: 'certificate.expiring', user_id: cert.user_id, team_id: cert.team_id,
        data: { certificate: { id, order_id: Number(cert.order_id), sans: cert.sans, issuer: cert.issuer, serial_hex: cert.serial_hex }, expires_at, days_left },
      }, tx);
      const rendered = renderEmail({
        subject: `Your certificate for ${cert.sans[0]} expires in ${days_left} day${days_left === 1 ? '' : 's'}`,
        paragraphs: [
          `The certificate ${id} (serial ${cert.serial_hex}) for ${cert.sans.join(', ')} expires on ${expires_at}.`,
          'Order a new certificate for these names before then, deploy it, and revoke the old one if it is no longer used.',
        ],
        action: { label: 'See the certificate', url: publicLink(deps.config, `/v1/certificates/${id}`) },
      });
      await deps.mail.send({ ...rendered, to: cert.owner_email, user_id: cert.user_id, kind: 'certificate.expiring' }, tx);
    }
    return due.length;
  });
}
