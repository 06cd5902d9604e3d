import { renderEmail, type RenderedEmail } from '../email/layout.js';

/** The verification e-mail sent at registration and on resend (docs/api/accounts.md "E-mail verification"). */
export function verificationEmail(v: { link: string; expires_at: Date }): RenderedEmail {
  return renderEmail({
    subject: 'Verify your e-mail address for Vantage',
    paragraphs: [
      'Welcome to Vantage. Please confirm that this is your e-mail address by following the link below.',
      `The link works until ${v.expires_at.toISOString().replace('T', ' ').slice(0, 16)} UTC. If it has expired, ask for a new one from your account.`,
    ],
    action: { label: 'Verify e-mail address', url: v.link },
    footer: 'If you did not create a Vantage account, ignore this e-mail: nothing happens until the link is followed.',
  });
}
