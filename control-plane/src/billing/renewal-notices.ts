import type { Config } from '../config/index.js';
import type { Mailer } from '../contracts.js';
import type { Sql } from '../db/sql.js';
import { expiredEmail, pastDueEmail, renewalInvoiceEmail } from './renewal-emails.js';
import { claimRenewalNotices, markRenewalNoticesSent } from './renewal-notices.db.js';
import { accountQuotas, type QuotaDeps } from './quotas.js';

/** Notices one transaction claims at most. */
const NOTICES_PER_PASS = 50;

export type RenewalNoticeDeps = {
  sql: Sql;
  config: QuotaDeps['config'] & Pick<Config, 'public_url' | 'host' | 'port' | 'billing_grace_days' | 'billing_period_days'>;
  mail: Mailer;
};

/**
 * Send the renewal e-mails waiting (docs/api/billing.md "Renewal e-mails"): each notice written with
 * the change it reports (renewal invoice issued, past_due, expired: subscriptions.db.ts) becomes one
 * e-mail to the account's address, queued in the delivery engine in the transaction that marks it
 * sent, its notices claimed FOR UPDATE SKIP LOCKED: each e-mail once, whatever the number of
 * passes and instances. The expired e-mail names the plan the account is on now (accountQuotas).
 * A notice overtaken before it was sent (its invoice paid or void, a past_due subscription paid)
 * is marked sent without an e-mail.
 * @returns how many e-mails were queued (or logged without SMTP)
 */
export async function sendRenewalNotices(deps: RenewalNoticeDeps): Promise<number> {
  let sent = 0;
  for (;;) {
    const batch = await deps.sql.begin(async (tx) => {
      const due = await claimRenewalNotices(tx, NOTICES_PER_PASS);
      let queued = 0;
      for (const n of due) {
        if (n.event === 'renewal_invoice' ? n.invoice_status !== 'open' : n.event === 'past_due' && n.status !== 'past_due') continue;
        const rendered = n.event === 'renewal_invoice' ? renewalInvoiceEmail(n, deps.config)
          : n.event === 'past_due' ? pastDueEmail(n, deps.config.plan, deps.config)
            : expiredEmail(n, await accountQuotas({ sql: tx, config: deps.config }, n.user_id), deps.config);
        await deps.mail.send({ ...rendered, to: n.email, user_id: n.user_id, kind: `billing.${n.event}` }, tx);
        queued++;
      }
      if (due.length > 0) await markRenewalNoticesSent(tx, due.map((n) => n.id));
      return { claimed: due.length, queued };
    }) as { claimed: number; queued: number };
    sent += batch.queued;
    if (batch.claimed < NOTICES_PER_PASS) return sent;
  }
}
