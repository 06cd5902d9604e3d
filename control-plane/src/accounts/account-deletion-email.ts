import { renderEmail, type RenderedEmail } from '../email/layout.js';

/**
 * The e-mail sent when an account's deletion is requested (docs/api/accounts.md "Account
 * lifecycle"): when it will be purged and the restore token (`art_…`) that cancels it. The
 * token is given to POST, never as a link to follow: a mail scanner opening links must not undo
 * a deletion.
 */
export function accountDeletionEmail(v: { token: string; purge_at: Date; base_url: string }): RenderedEmail {
  const when = `${v.purge_at.toISOString().replace('T', ' ').slice(0, 16)} UTC`;
  return renderEmail({
    subject: 'Your Vantage account is scheduled for deletion',
    paragraphs: [
      `Your Vantage account and everything it owns will be deleted for good on ${when}. Until then it cannot be used, and you can restore it.`,
      `To keep it, restore it before that time with this token: ${v.token}`,
      `From the API: POST ${v.base_url}/v1/auth/account/restore with {"token": "${v.token}"}. Its earlier sessions and keys stay revoked: sign in again afterwards.`,
    ],
    footer: 'If you asked for the deletion, you need not do anything.',
  });
}
