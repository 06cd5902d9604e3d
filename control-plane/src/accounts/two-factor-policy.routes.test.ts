import t from 'tap';
import { newId } from '@vantage/shared-protocol';
import { teamOfFour } from '../teams/test-support.js';
import { call, createApiKey, registerUser, testApp } from '../test-support/app.js';
import { currentTotp } from './totp.js';

t.test('own policy: everything but the setup routes answers AUTH_2FA_SETUP_REQUIRED until TOTP is on', async (t) => {
  const { app } = await testApp(t);
  const u = await registerUser(app);
  const key = await createApiKey(app, u.access_token);
  t.equal((await call(app, 'GET', '/v1/monitors', { token: u.access_token })).status, 200, 'no policy: no refusal');
  const set = await call(app, 'PATCH', '/v1/account/security', { token: u.access_token, body: { require_2fa: true } });
  t.equal(set.status, 200);
  t.match(set.body.data, { require_2fa: true, two_factor_required: true, setup_required: true });
  t.equal((await call(app, 'PATCH', '/v1/account/security', { token: u.access_token, body: { require_2fa: 'yes' } })).status, 409, 'blocked before validation: PATCH is not a setup route');

  for (const [what, token] of [['session', u.access_token], ['API key', key.key]] as const) {
    const refused = await call(app, 'GET', '/v1/monitors', { token });
    t.equal(refused.status, 409, `${what}: refused`);
    t.match(refused.body.error, { code: 'AUTH_2FA_SETUP_REQUIRED', details: { reason: 'policy' } });
  }
  t.equal((await call(app, 'POST', '/v1/account/api-keys', { token: u.access_token, body: { name: 'k' } })).status, 409, 'no new keys either');
  t.equal((await call(app, 'GET', '/v1/account/profile', { token: u.access_token })).status, 200, 'the profile stays readable');
  t.equal((await call(app, 'GET', '/v1/account/security', { token: u.access_token })).status, 200, 'so does the security summary');
  t.equal((await call(app, 'GET', '/v1/account/passkeys', { token: u.access_token })).status, 200, 'passkey routes stay open');
  t.equal((await call(app, 'GET', '/v1/nothing-here', { token: u.access_token })).status, 404, 'unknown routes still 404');
  const setup = await call(app, 'POST', '/v1/account/2fa/setup', { token: u.access_token });
  t.equal(setup.status, 200, 'TOTP setup is open');
  const enabled = await call(app, 'POST', '/v1/account/2fa/enable', { token: u.access_token, body: { code: currentTotp(setup.body.data.secret) } });
  t.equal(enabled.status, 200);
  t.equal((await call(app, 'GET', '/v1/monitors', { token: u.access_token })).status, 200, 'with TOTP on, everything works again');
  t.equal((await call(app, 'GET', '/v1/monitors', { token: key.key })).status, 200, 'keys too');
  const summary = await call(app, 'GET', '/v1/account/security', { token: u.access_token });
  t.match(summary.body.data, { totp_enabled: true, require_2fa: true, two_factor_required: true, setup_required: false, recovery_codes_left: 10 });
  t.equal((await call(app, 'POST', '/v1/auth/logout', { token: u.access_token })).status, 200);
});

t.test('team policy: owners and admins set it; members without 2FA are held at setup; a passkey counts', async (t) => {
  const { app, sql, team_id, owner, admin, member, viewer, outsider } = await teamOfFour(t, testApp(t));
  const team = await call(app, 'GET', `/v1/teams/${team_id}`, { token: member.access_token });
  t.equal(team.body.data.require_2fa, false);
  const byMember = await call(app, 'PATCH', `/v1/teams/${team_id}`, { token: member.access_token, body: { require_2fa: true } });
  t.equal(byMember.status, 403, 'a member cannot set it');
  t.equal((await call(app, 'PATCH', `/v1/teams/${team_id}`, { token: outsider.access_token, body: { require_2fa: true } })).status, 404, 'another team looks absent');
  const byAdmin = await call(app, 'PATCH', `/v1/teams/${team_id}`, { token: admin.access_token, body: { require_2fa: true } });
  t.equal(byAdmin.status, 200, 'an admin can');
  t.equal(byAdmin.body.data.require_2fa, true);

  const refused = await call(app, 'GET', '/v1/monitors', { token: member.access_token });
  t.equal(refused.body.error?.code, 'AUTH_2FA_SETUP_REQUIRED', 'a member without 2FA is held');
  t.equal((await call(app, 'GET', `/v1/teams/${team_id}`, { token: owner.access_token })).status, 409, 'the owner too');
  t.equal((await call(app, 'GET', '/v1/monitors', { token: outsider.access_token })).status, 200, 'someone in no such team is not');
  const summary = await call(app, 'GET', '/v1/account/security', { token: viewer.access_token });
  t.same(summary.body.data.teams_requiring_2fa, [{ id: team_id, name: 'Platform' }]);
  t.match(summary.body.data, { require_2fa: false, two_factor_required: true, setup_required: true });

  // A passkey is a second factor as good as TOTP (the passkeys table of migration 0053).
  await sql`INSERT INTO passkeys (id, user_id, credential_id, public_key, name) VALUES (${newId('passkey')}, ${member.user_id}, ${'cred-' + member.user_id}, ${Buffer.from([1, 2, 3])}, 'test key')`;
  t.equal((await call(app, 'GET', '/v1/monitors', { token: member.access_token })).status, 200, 'a member with a passkey passes');
  t.match((await call(app, 'GET', '/v1/account/security', { token: member.access_token })).body.data, { passkeys: 1, setup_required: false });

  await sql`UPDATE teams SET require_2fa = false WHERE id = ${team_id}`;
  t.equal((await call(app, 'GET', '/v1/monitors', { token: viewer.access_token })).status, 200, 'lifting the policy lets everyone back');
});

t.test('team PATCH: require_2fa is validated', async (t) => {
  const { app } = await testApp(t);
  const u = await registerUser(app);
  const team = await call(app, 'POST', '/v1/teams', { token: u.access_token, body: { name: 'T' } });
  const bad = await call(app, 'PATCH', `/v1/teams/${team.body.data.id}`, { token: u.access_token, body: { require_2fa: 'yes' } });
  t.equal(bad.status, 400);
  t.equal(bad.body.error.code, 'VALIDATION_FAILED');
  t.equal((await call(app, 'GET', `/v1/teams/${team.body.data.id}`, { token: u.access_token })).body.data.require_2fa, false, 'nothing changed');
});
