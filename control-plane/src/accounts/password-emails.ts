import { renderEmail, type RenderedEmail } from '../email/layout.js';

const utc = (d: Date) => `${d.toISOString().replace('T', ' ').slice(0, 16)} UTC`;

/** The e-mail of `POST /v1/auth/password/forgot`: the reset link (docs/api/accounts.md "Passwords"). */
export function passwordResetEmail(v: { link: string; expires_at: Date }): RenderedEmail {
  return renderEmail({
    subject: 'Reset your Vantage password',
    paragraphs: [
      'Someone, hopefully you, asked to reset the password of the Vantage account with this e-mail address. Follow the link below to choose a new one.',
      `The link works once, until ${utc(v.expires_at)}. Setting a new password signs the account out everywhere.`,
    ],
    action: { label: 'Choose a new password', url: v.link },
    footer: 'If you did not ask for this, ignore this e-mail: your password stays as it is.',
  });
}

/** The notice sent after a password change or reset (docs/api/accounts.md "Passwords"). */
export function passwordChangedEmail(v: { at: Date; how: 'changed' | 'reset' }): RenderedEmail {
  return renderEmail({
    subject: 'Your Vantage password was changed',
    paragraphs: [
      v.how === 'reset'
        ? `The password of your Vantage account was reset through an e-mailed link at ${utc(v.at)}. Every session of the account was signed out.`
        : `The password of your Vantage account was changed at ${utc(v.at)}. Your other sessions were signed out.`,
      'If this was not you, ask for a password reset link for this address now, and tell your administrator.',
    ],
    footer: 'You get this e-mail whenever the password of your account changes.',
  });
}
