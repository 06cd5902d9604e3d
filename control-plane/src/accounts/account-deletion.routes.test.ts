import t from 'tap';
import { createLogger } from '../log.js';
import { startSmtpServer } from '../email/test-support.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { seedTeam } from '../teams/test-support.js';
import { purgeDueAccounts } from './account-deletion.js';
import { startAccountPurger } from './account-deletion.job.js';

/*
 * Deleting an account (docs/api/accounts.md "Account lifecycle"): confirmed with the password,
 * refused while the account is a team's only owner, then `deleting` for the grace period with
 * every credential ended (410 ACCOUNT_DELETED, login too); restored by the e-mailed art_ token
 * or by e-mail and password; purged with what it owns once the grace period has passed, its team
 * resources passing to another owner.
 */

const FAST = { delivery_poll_interval_ms: 50, delivery_retry_delays_ms: [50, 50, 50] };
const log = createLogger('silent');

t.test('delete: confirmation, sole-owner refusal, deleting state, restore by e-mailed token', async (t) => {
  const smtp = await startSmtpServer(t);
  const { app, sql } = await testApp(t, { config: { ...FAST, smtp_url: smtp.smtp_url, public_url: 'https://vantage.example', account_deletion_grace_s: 7 * 86_400 }, delivery: true });
  const u = await registerUser(app);
  const key = (await call(app, 'POST', '/v1/account/api-keys', { token: u.access_token, body: { name: 'k' } })).body.data.key as string;
  const auth = { token: u.access_token };

  t.equal((await call(app, 'DELETE', '/v1/account', { token: key, body: { password: u.password } })).body.error.code, 'FORBIDDEN', 'not with an API key');
  t.equal((await call(app, 'DELETE', '/v1/account', { ...auth, body: {} })).body.error.code, 'VALIDATION_FAILED', 'the password is required');
  const wrong = await call(app, 'DELETE', '/v1/account', { ...auth, body: { password: 'not-the-password' } });
  t.equal(wrong.status, 401);
  t.equal(wrong.body.error.code, 'AUTH_CREDENTIALS_INVALID');

  const team = (await call(app, 'POST', '/v1/teams', { ...auth, body: { name: 'Solo' } })).body.data.id as string;
  const sole = await call(app, 'DELETE', '/v1/account', { ...auth, body: { password: u.password } });
  t.equal(sole.status, 409);
  t.match(sole.body.error, { code: 'CONFLICT', details: { teams: [{ id: team, name: 'Solo', other_members: 0 }] } }, 'names the teams it solely owns');
  t.equal((await call(app, 'GET', '/v1/account/profile', auth)).status, 200, 'refusals changed nothing');
  t.equal((await call(app, 'DELETE', `/v1/teams/${team}`, auth)).status, 200, 'the team is deleted first');

  const before = Date.now();
  const del = await call(app, 'DELETE', '/v1/account', { ...auth, body: { password: u.password } });
  t.equal(del.status, 200, JSON.stringify(del.body));
  t.match(del.body.data, { status: 'deleting', restore_email: 'queued' });
  const purge_at = Date.parse(del.body.data.deletion_scheduled_at);
  t.ok(Math.abs(purge_at - before - 7 * 86_400_000) < 60_000, 'purge after the configured grace period');

  for (const token of [u.access_token, key]) {
    const r = await call(app, 'GET', '/v1/account/profile', { token });
    t.equal(r.status, 410, 'every credential ends at once');
    t.match(r.body.error, { code: 'ACCOUNT_DELETED', details: { purge_at: del.body.data.deletion_scheduled_at } });
  }
  t.equal((await call(app, 'POST', '/v1/auth/refresh', { body: { refresh_token: u.refresh_token } })).status, 401, 'the refresh token is dead');
  const login = await call(app, 'POST', '/v1/auth/login', { body: { email: u.email, password: u.password } });
  t.equal(login.status, 410, 'login answers 410');
  t.match(login.body.error, { code: 'ACCOUNT_DELETED', details: { purge_at: del.body.data.deletion_scheduled_at, restore: /account\/restore/ } });
  t.equal((await call(app, 'POST', '/v1/auth/login', { body: { email: u.email, password: 'wrong-password' } })).body.error.code, 'AUTH_CREDENTIALS_INVALID', 'a wrong password learns nothing');

  let mail;
  for (let n = 1; !mail; n++) mail = (await smtp.waitFor(n)).find((m) => m.parsed.subject?.includes('scheduled for deletion'));
  const token = /art_[0-9A-Za-z]+/.exec(String(mail.parsed.text))![0];
  t.match(mail.parsed.text, /https:\/\/vantage\.example\/v1\/auth\/account\/restore/, 'the e-mail says how to restore');
  t.equal((await call(app, 'POST', '/v1/auth/account/restore', { body: { token: 'art_unknown' } })).body.error.code, 'AUTH_INVALID_TOKEN');
  t.equal((await call(app, 'POST', '/v1/auth/account/restore', { body: {} })).body.error.code, 'VALIDATION_FAILED');
  const restored = await call(app, 'POST', '/v1/auth/account/restore', { body: { token } });
  t.equal(restored.status, 200, JSON.stringify(restored.body));
  t.same(restored.body.data, { user_id: u.user_id, status: 'active' });
  t.equal((await call(app, 'POST', '/v1/auth/account/restore', { body: { token } })).body.error.code, 'AUTH_INVALID_TOKEN', 'a token works once');
  t.equal((await call(app, 'GET', '/v1/account/profile', { token: key })).body.error.code, 'API_KEY_REVOKED', 'restored: old keys stay revoked');
  const again = await call(app, 'POST', '/v1/auth/login', { body: { email: u.email, password: u.password } });
  t.equal(again.status, 200, 'and the account logs in');
  t.same((await sql`SELECT status, deletion_scheduled_at FROM users WHERE id = ${u.user_id}`)[0], { status: 'active', deletion_scheduled_at: null });
});

t.test('restore by e-mail and password; an active account has nothing to restore', async (t) => {
  const { app } = await testApp(t);
  const u = await registerUser(app);
  t.equal((await call(app, 'POST', '/v1/auth/account/restore', { body: { email: u.email, password: u.password } })).body.error.code, 'CONFLICT', 'not deleting');
  const del = await call(app, 'DELETE', '/v1/account', { token: u.access_token, body: { password: u.password } });
  t.match(del.body.data, { status: 'deleting', restore_email: 'logged' }, 'without SMTP the restore e-mail is logged');
  t.equal((await call(app, 'POST', '/v1/auth/account/restore', { body: { email: u.email, password: 'wrong-password' } })).body.error.code, 'AUTH_CREDENTIALS_INVALID');
  const r = await call(app, 'POST', '/v1/auth/account/restore', { body: { email: u.email, password: u.password } });
  t.equal(r.status, 200);
  t.equal((await call(app, 'POST', '/v1/auth/login', { body: { email: u.email, password: u.password } })).status, 200);
});

t.test('purge after the grace period: personal data gone, team resources pass to an owner, others untouched', async (t) => {
  const { app, sql } = await testApp(t, { config: { delivery_allow_cidrs: ['127.0.0.0/8'] } });
  const [gone, owner, other] = await Promise.all([registerUser(app), registerUser(app), registerUser(app)]);
  const team = await seedTeam(sql, [[owner, 'owner'], [gone, 'admin']]);
  const mk = async (who: typeof gone, name: string, team_id?: string) => {
    const r = await call(app, 'POST', '/v1/monitor-groups', { token: who.access_token, body: { name, ...(team_id ? { team_id } : {}) } });
    t.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.data.id as string;
  };
  const personal = await mk(gone, 'mine');
  const shared = await mk(gone, 'the team\'s', team);
  const others = await mk(other, 'someone else\'s');
  const channel = await call(app, 'POST', '/v1/alert-channels', { token: gone.access_token, body: { name: 'Slack', type: 'slack', config: { webhook_url: 'http://127.0.0.1:9/s' } } });
  t.equal(channel.status, 201, JSON.stringify(channel.body));
  const monitor = await call(app, 'POST', '/v1/monitors', { token: gone.access_token, body: { name: 'hb', type: 'heartbeat' } });
  t.equal(monitor.status, 201, JSON.stringify(monitor.body));
  const policy = await call(app, 'POST', '/v1/alert-policies', { token: gone.access_token, body: { name: 'p', monitor_id: monitor.body.data.id, channel_ids: [channel.body.data.id] } });
  t.equal(policy.status, 201, JSON.stringify(policy.body));

  // Nodes it enrolled: one personal, one for the team.
  await sql`INSERT INTO nodes (id, name, owner_user_id, status, credential_hash) VALUES
    ('node_purgepersonal', 'mine', ${gone.user_id}, 'online', 'h1'),
    ('node_purgeteam', 'ours', ${gone.user_id}, 'online', 'h2')`;
  await sql`UPDATE nodes SET team_id = ${team} WHERE id = 'node_purgeteam'`;

  t.equal((await call(app, 'DELETE', '/v1/account', { token: gone.access_token, body: { password: gone.password } })).status, 200);
  t.equal(await purgeDueAccounts({ sql, log }), 0, 'nothing is purged during the grace period');
  t.equal((await sql`SELECT 1 FROM users WHERE id = ${gone.user_id}`).length, 1);

  await sql`UPDATE users SET deletion_scheduled_at = now() - interval '1 second' WHERE id = ${gone.user_id}`;
  const stop = startAccountPurger({ sql, log, config: { account_purge_interval_s: 3600 } });
  t.teardown(stop);
  const deadline = Date.now() + 60_000;
  while ((await sql`SELECT 1 FROM users WHERE id = ${gone.user_id}`).length > 0) {
    if (Date.now() > deadline) throw new Error('the account was not purged within 60 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  t.pass('the purger ran at start and purged the account');
  t.equal((await sql`SELECT 1 FROM monitor_groups WHERE id = ${personal}`).length, 0, 'personal resources deleted');
  t.equal((await sql`SELECT 1 FROM alert_channels WHERE id = ${channel.body.data.id}`).length, 0, 'channels too (after their policies)');
  t.equal((await sql`SELECT 1 FROM monitors WHERE id = ${monitor.body.data.id}`).length, 0, 'and monitors');
  t.equal((await sql`SELECT 1 FROM team_members WHERE user_id = ${gone.user_id}`).length, 0, 'memberships ended');
  t.same(await sql`SELECT user_id, team_id FROM monitor_groups WHERE id = ${shared}`, [{ user_id: owner.user_id, team_id: team }], 'team resources stay the team\'s, now the owner\'s');
  t.equal((await sql`SELECT 1 FROM monitor_groups WHERE id = ${others}`).length, 1, 'others untouched');
  t.same(await sql`SELECT owner_user_id, team_id, removed_at IS NOT NULL AS removed, credential_hash FROM nodes WHERE id = 'node_purgeteam'`,
    [{ owner_user_id: owner.user_id, team_id: team, removed: false, credential_hash: 'h2' }], 'the team\'s node passes to the owner, still enrolled');
  t.same(await sql`SELECT owner_user_id, removed_at IS NOT NULL AS removed, credential_hash, status FROM nodes WHERE id = 'node_purgepersonal'`,
    [{ owner_user_id: gone.user_id, removed: true, credential_hash: null, status: 'offline' }], 'a personal node is removed, its credential revoked, its row kept');
  t.equal((await call(app, 'POST', '/v1/auth/login', { body: { email: gone.email, password: gone.password } })).body.error.code, 'AUTH_CREDENTIALS_INVALID', 'the account is gone');
});

t.test('password-less accounts confirm with a recent login; a sole owner at purge time is skipped', async (t) => {
  const { app, sql } = await testApp(t, { config: { account_deletion_recent_login_s: 60 } });
  const u = await registerUser(app);
  await sql`UPDATE users SET password_hash = '', email = '' WHERE id = ${u.user_id}`;
  await sql`UPDATE sessions SET created_at = now() - interval '2 minutes' WHERE user_id = ${u.user_id}`;
  const old = await call(app, 'DELETE', '/v1/account', { token: u.access_token, body: {} });
  t.equal(old.status, 403);
  t.match(old.body.error, { code: 'FORBIDDEN', details: { reason: 'login_too_old', max_age_s: 60 } });
  await sql`UPDATE sessions SET created_at = now() WHERE user_id = ${u.user_id}`;
  const ok = await call(app, 'DELETE', '/v1/account', { token: u.access_token, body: {} });
  t.equal(ok.status, 200, JSON.stringify(ok.body));
  t.equal(ok.body.data.restore_email, 'failed', 'no address to send the restore token to');

  // It became a team's only owner after the request (another owner left): the purge waits.
  const team = await seedTeam(sql, { owner: u });
  await sql`UPDATE users SET deletion_scheduled_at = now() - interval '1 second' WHERE id = ${u.user_id}`;
  t.equal(await purgeDueAccounts({ sql, log }), 0, 'skipped');
  t.equal((await sql`SELECT 1 FROM users WHERE id = ${u.user_id}`).length, 1, 'still there');
  await sql`DELETE FROM teams WHERE id = ${team}`;
  t.equal(await purgeDueAccounts({ sql, log }), 1, 'purged once the team is gone');
});
