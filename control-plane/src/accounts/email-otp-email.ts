import { renderEmail, type RenderedEmail } from '../email/layout.js';

/**
 * The e-mail carrying a one-time code (docs/api/accounts.md "E-mail codes"): for logging in, or
 * for confirming a sensitive change (turning off two-factor authentication, new recovery codes).
 */
export function emailOtpEmail(v: { code: string; purpose: 'login' | 'action'; expires_at: Date }): RenderedEmail {
  const until = `${v.expires_at.toISOString().replace('T', ' ').slice(0, 16)} UTC`;
  return renderEmail({
    subject: v.purpose === 'login' ? `Your Vantage sign-in code: ${v.code}` : `Your Vantage confirmation code: ${v.code}`,
    paragraphs: [
      v.purpose === 'login'
        ? `Your code to sign in to Vantage is ${v.code}.`
        : `Your code to confirm a change to the security settings of your Vantage account is ${v.code}.`,
      `It works once, until ${until}. Nobody from Vantage will ever ask you for it.`,
    ],
    footer: 'If you did not ask for this code, ignore this e-mail: without the code nothing happens.',
  });
}
