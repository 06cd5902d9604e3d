import { inertText } from '../email/inert-text.js';
import { renderEmail, type RenderedEmail } from '../email/layout.js';

/**
 * The opt-in e-mail an e-mail channel recipient gets once (docs/api/alerting.md "E-mail
 * recipients"). It goes to an address the account typed, so it carries as little of the
 * account's text as can be: a fixed subject, and the channel name only as inert plain text
 * (email/inert-text.ts: no client can make a link of it) marked as the account's words. The one
 * link is the confirm page of this deployment (`link`), which asks for a click before anything
 * changes.
 */
export function optInEmail(v: { address: string; channel_name: string; link: string; expires_at: Date; site: string }): RenderedEmail {
  return renderEmail({
    subject: 'Confirm alert e-mails from Vantage',
    paragraphs: [
      `An account on the Vantage monitoring service at ${v.site} wants to send monitoring alerts to ${inertText(v.address)}. Nothing will be sent to this address unless you confirm.`,
      `The account named its alert channel as follows (text chosen by the account, not by Vantage, shown with links disabled): «${inertText(v.channel_name)}»`,
      `If you expect these alerts, open the link below and confirm. It works until ${v.expires_at.toISOString().replace('T', ' ').slice(0, 16)} UTC. Every alert e-mail has a link to stop them.`,
    ],
    action: { label: 'Review and confirm', url: v.link },
    footer: 'If you do not know why you got this, ignore it: without your confirmation this address gets no alerts and no further e-mail about them.',
  });
}
