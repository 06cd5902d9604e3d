import { renderEmail, type RenderedEmail } from '../email/layout.js';

/**
 * The invitation e-mail sent by POST /v1/teams/{id}/invites (docs/api/teams.md "Invitations"):
 * who invites, to which team and role, the `tit_…` token and how to accept it. Acceptance needs a
 * signed-in account with the invited address, so the e-mail carries the token and a link to the
 * console's accept page (docs/console.md), where the signed-in invitee accepts it: the link alone
 * accepts nothing. The token is in the link's fragment, which browsers never send to a server.
 */
export function teamInviteEmail(v: { team_name: string; inviter_email: string; role: string; token: string; base_url: string; expires_at: Date }): RenderedEmail {
  return renderEmail({
    subject: `You are invited to the team "${v.team_name}" on Vantage`,
    paragraphs: [
      `${v.inviter_email} invites you to join the team "${v.team_name}" on Vantage as ${v.role}.`,
      `To accept, sign in (or register) at ${v.base_url} with this e-mail address, then open ${v.base_url}/teams/accept#token=${v.token} (or enter this token on that page: ${v.token}).`,
      `From the API: POST ${v.base_url}/v1/teams/invites/accept with {"token": "${v.token}"}.`,
      `The invitation works once, until ${v.expires_at.toISOString().replace('T', ' ').slice(0, 16)} UTC.`,
    ],
    footer: 'If you do not expect this invitation, ignore this e-mail: nothing happens until it is accepted.',
  });
}
