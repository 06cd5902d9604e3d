import t from 'tap';
import { call, registerUser, testApp } from '../test-support/app.js';
import { startSmtpServer, type ReceivedMail } from '../email/test-support.js';
import { teamOfFour, type User } from './test-support.js';

// One app and database for the whole file (each test makes its own accounts and team): a
// migration per test would cost more than the tests themselves on a loaded machine.
let shared: ReturnType<typeof testApp> | undefined;
const env = () => (shared ??= testApp(t));

t.test('invitations: admins invite, list and revoke; tokens are single use, bound to the address, expiring', async (t) => {
  const { app, sql, team_id, owner, admin, member, viewer, outsider } = await teamOfFour(t, env());
  const invite = (who: User, body: unknown) => call(app, 'POST', `/v1/teams/${team_id}/invites`, { token: who.access_token, body });
  const accept = (who: User, token: string) => call(app, 'POST', '/v1/teams/invites/accept', { token: who.access_token, body: { token } });
  for (const who of [viewer, member]) {
    const res = await invite(who, { email: 'new@example.test' });
    t.equal(res.status, 403, 'viewers and members cannot invite');
    t.equal(res.body.error.details.required_role, 'admin');
    t.equal((await call(app, 'GET', `/v1/teams/${team_id}/invites`, { token: who.access_token })).status, 403, 'nor list invitations');
  }
  t.equal((await invite(outsider, { email: 'new@example.test' })).status, 404);
  t.equal((await invite(admin, { email: 'new@example.test', role: 'owner' })).status, 400, 'an invitation never offers owner');
  const exists = await invite(admin, { email: member.email.toUpperCase() });
  t.equal(exists.status, 409, "a member's address (any case) is refused");
  t.equal(exists.body.error.code, 'TEAM_MEMBER_EXISTS');

  const newcomer = await registerUser(app);
  const made = await invite(admin, { email: newcomer.email.toUpperCase(), role: 'viewer' });
  t.equal((await accept(newcomer, made.body.data.token)).body.error.code, 'ACCOUNT_EMAIL_UNVERIFIED', 'an unverified address cannot accept (403)');
  await sql`UPDATE users SET email_verified = true WHERE id = ${newcomer.user_id}`;
  t.equal(made.status, 201);
  t.match(made.body.data, { team_id, role: 'viewer', status: 'pending', invited_by: admin.user_id, email_delivery: 'logged' });
  t.match(made.body.data.token, /^tit_/);
  t.match(made.body.data.id, /^tinv_/);
  const listed = await call(app, 'GET', `/v1/teams/${team_id}/invites`, { token: admin.access_token });
  t.equal(listed.body.data[0].id, made.body.data.id);
  t.notOk('token' in listed.body.data[0], 'a list never shows tokens');

  const wrong = await accept(outsider, made.body.data.token);
  t.equal(wrong.status, 400, 'another address cannot accept');
  t.equal(wrong.body.error.code, 'TEAM_INVITE_INVALID');
  t.equal((await accept(newcomer, 'tit_unknown')).body.error.code, 'TEAM_INVITE_INVALID', 'nor an unknown token');
  const joined = await accept(newcomer, made.body.data.token);
  t.equal(joined.status, 200, 'the invited address accepts (any case)');
  t.match(joined.body.data, { id: team_id, role: 'viewer' });
  t.equal((await accept(newcomer, made.body.data.token)).body.error.code, 'TEAM_INVITE_INVALID', 'a used token is invalid');
  t.equal((await call(app, 'GET', `/v1/teams/${team_id}/invites`, { token: owner.access_token })).body.data[0].status, 'accepted');

  const late = await registerUser(app);
  await sql`UPDATE users SET email_verified = true WHERE id = ${late.user_id}`;
  const expiring = await invite(owner, { email: late.email });
  await sql`UPDATE team_invites SET expires_at = now() - interval '1 second' WHERE id = ${expiring.body.data.id}`;
  t.equal((await accept(late, expiring.body.data.token)).body.error.code, 'TEAM_INVITE_INVALID', 'an expired token is invalid');

  const first = await invite(admin, { email: late.email });
  const second = await invite(admin, { email: late.email, role: 'admin' });
  t.equal((await accept(late, first.body.data.token)).body.error.code, 'TEAM_INVITE_INVALID', 'a newer invitation replaces an older one');
  t.equal((await call(app, 'DELETE', `/v1/teams/${team_id}/invites/${second.body.data.id}`, { token: member.access_token })).status, 403, 'a member cannot revoke');
  t.equal((await call(app, 'DELETE', `/v1/teams/${team_id}/invites/${second.body.data.id}`, { token: admin.access_token })).status, 200, 'an admin revokes');
  t.equal((await call(app, 'DELETE', `/v1/teams/${team_id}/invites/${second.body.data.id}`, { token: admin.access_token })).status, 404, 'once');
  t.equal((await accept(late, second.body.data.token)).body.error.code, 'TEAM_INVITE_INVALID', 'a revoked token is invalid');
  t.equal((await call(app, 'GET', `/v1/teams/${team_id}`, { token: late.access_token })).status, 404, 'and joined nothing');

  const racing = await invite(admin, { email: late.email });
  await sql`INSERT INTO team_members (team_id, user_id, role) VALUES (${team_id}, ${late.user_id}, 'viewer')`;
  const dup = await accept(late, racing.body.data.token);
  t.equal(dup.status, 409, 'an account that became a member meanwhile');
  t.equal(dup.body.error.code, 'TEAM_MEMBER_EXISTS');
  const kept = (await call(app, 'GET', `/v1/teams/${team_id}/invites`, { token: admin.access_token })).body.data.find((i: { id: string }) => i.id === racing.body.data.id);
  t.equal(kept.status, 'pending', 'leaves the invitation unused');
});

t.test('an invitation is e-mailed over SMTP with its token, which the invitee accepts', async (t) => {
  const smtp = await startSmtpServer(t);
  const { app } = await testApp(t, {
    config: { delivery_poll_interval_ms: 50, delivery_retry_delays_ms: [50, 50, 50], smtp_url: smtp.smtp_url, smtp_from: 'Vantage <noreply@vantage.test>', public_url: 'https://vantage.example' },
    delivery: true,
  });
  const [owner, invitee] = await Promise.all([registerUser(app), registerUser(app)]);
  const team = await call(app, 'POST', '/v1/teams', { token: owner!.access_token, body: { name: 'Night shift' } });
  const made = await call(app, 'POST', `/v1/teams/${team.body.data.id}/invites`, { token: owner!.access_token, body: { email: invitee!.email, role: 'member' } });
  t.equal(made.status, 201);
  t.equal(made.body.data.email_delivery, 'queued', 'the e-mail is on its way');
  // Registration sends verification e-mails too: wait until the invitation is among the messages.
  let mail: ReceivedMail | undefined;
  for (let n = 1; !mail; n++) mail = (await smtp.waitFor(n, 60_000)).find((m) => m.parsed.subject?.includes('Night shift'));
  t.same(mail.to.map((a) => a.toLowerCase()), [invitee!.email.toLowerCase()]);
  t.equal(mail.parsed.subject, 'You are invited to the team "Night shift" on Vantage');
  const token = /tit_[0-9A-Za-z_-]+/.exec(mail.parsed.text!)?.[0];
  t.equal(token, made.body.data.token, 'the e-mail carries the token');
  t.match(mail.parsed.text, /https:\/\/vantage\.example\/v1\/teams\/invites\/accept/, 'and how to accept it');
  t.ok(mail.parsed.text!.includes(`https://vantage.example/teams/accept#token=${token}`), 'and the console page that accepts it');
  const unverified = await call(app, 'POST', '/v1/teams/invites/accept', { token: invitee!.access_token, body: { token } });
  t.equal(unverified.status, 403, 'an unverified address cannot accept');
  t.equal(unverified.body.error.code, 'ACCOUNT_EMAIL_UNVERIFIED');
  // The invitee verifies its address with the link of its verification e-mail, then accepts.
  const verification = smtp.messages.find((m) => m.to.some((a) => a.toLowerCase() === invitee!.email.toLowerCase()) && /verify-email\?token=/.test(String(m.parsed.text)));
  const link = /\/v1\/auth\/verify-email\?token=(\S+)/.exec(String(verification!.parsed.text))![1]!;
  t.equal((await call(app, 'POST', '/v1/auth/verify-email', { body: { token: decodeURIComponent(link) } })).status, 200, 'address verified');
  const joined = await call(app, 'POST', '/v1/teams/invites/accept', { token: invitee!.access_token, body: { token } });
  t.equal(joined.status, 200, 'the invitation was still usable');
  t.match(joined.body.data, { id: team.body.data.id, role: 'member', member_count: 2 });
});
