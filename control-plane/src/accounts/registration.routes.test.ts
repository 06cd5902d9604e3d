import t from 'tap';
import { newId } from '@vantage/shared-protocol';
import { call, registerUser, testApp } from '../test-support/app.js';
import { hashPassword } from './passwords.js';
import { registerAccount } from './registration.js';

/*
 * Registration modes (VANTAGE_REGISTRATION; docs/operators/self-hosting.md "Registration"): the
 * first account of an empty deployment registers in every mode and is its administrator; after
 * it, closed refuses, invite needs a usable invite token, open takes anyone.
 */

const register = (app: Parameters<typeof call>[0], email: string, extra: Record<string, unknown> = {}) =>
  call(app, 'POST', '/v1/auth/register', { body: { email, password: 'a-long-password', ...extra } });
const count = async (sql: any) => (await sql`SELECT count(*)::int AS n FROM users`)[0].n as number;

t.test('the default is closed; the first account registers anyway and is the administrator', async (t) => {
  const { app, sql } = await testApp(t, { config: { registration: undefined } });
  const first = await register(app, 'first@example.test');
  t.equal(first.status, 201, JSON.stringify(first.body));
  t.equal(first.body.meta.is_admin, true, 'the register answer says so');
  const [row] = await sql`SELECT is_admin FROM users WHERE id = ${first.body.data.user_id}`;
  t.equal(row!.is_admin, true, 'marked administrator');
  const admin = await call(app, 'GET', '/v1/admin/accounts', { token: first.body.data.access_token });
  t.equal(admin.status, 200, 'it may use the admin routes');

  const second = await register(app, 'second@example.test');
  t.equal(second.status, 403);
  t.equal(second.body.error.code, 'FORBIDDEN');
  t.match(second.body.error.message, /VANTAGE_REGISTRATION=closed/);
  t.match(second.body.error.details, { setting: 'VANTAGE_REGISTRATION', registration: 'closed', reason: 'registration_closed' });
  const taken = await register(app, 'FIRST@example.test');
  t.equal(taken.status, 403, 'closed: an existing address is not revealed either');
  t.equal(await count(sql), 1, 'nothing created');
});

t.test('open: anyone registers; only the first is administrator', async (t) => {
  const { app, sql } = await testApp(t, { config: { registration: 'open' } });
  const a = await register(app, 'a@example.test');
  const b = await register(app, 'b@example.test');
  t.equal(b.status, 201);
  t.equal(a.body.meta.is_admin, true);
  t.equal(b.body.meta.is_admin, false);
  t.same((await sql`SELECT email, is_admin FROM users ORDER BY created_at`).map((r) => [r.email, r.is_admin]), [['a@example.test', true], ['b@example.test', false]]);
  const denied = await call(app, 'GET', '/v1/admin/accounts', { token: b.body.data.access_token });
  t.equal(denied.status, 403, 'a later account is no administrator');
});

t.test('concurrent first registrations: exactly one administrator, the others meet the mode', async (t) => {
  for (const registration of ['closed', 'open'] as const) {
    const { app, sql } = await testApp(t, { config: { registration } });
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => register(app, `racer-${i}@example.test`)));
    const created = answers.filter((a) => a.status === 201);
    t.equal((await sql`SELECT count(*)::int AS n FROM users WHERE is_admin`)[0]!.n, 1, `${registration}: one administrator`);
    t.equal(created.filter((a) => a.body.meta.is_admin).length, 1, `${registration}: one answer says administrator`);
    if (registration === 'closed') {
      t.equal(created.length, 1, 'closed: only the first account exists');
      t.ok(answers.filter((a) => a.status !== 201).every((a) => a.status === 403 && a.body.error.details.reason === 'registration_closed'));
    } else t.equal(created.length, 8, 'open: all of them');
  }
});

t.test('concurrent first registrations without the scrypt work between them: still one administrator', async (t) => {
  // The HTTP requests above are spread out by password hashing; these meet the database together.
  const password_hash = await hashPassword('a-long-password');
  for (const registration of ['open', 'closed'] as const) {
    const { deps, sql } = await testApp(t, { config: { registration } });
    // Every pooled connection open first, so the registrations are not spread out by connecting.
    await Promise.all(Array.from({ length: 10 }, () => deps.sql`SELECT pg_sleep(0.05)`));
    const outcomes = await Promise.allSettled(Array.from({ length: 16 }, (_, i) =>
      registerAccount(deps, { id: newId('user'), email: `together-${i}@example.test`, password_hash })));
    t.equal(outcomes.filter((o) => o.status === 'fulfilled').length, registration === 'open' ? 16 : 1, `${registration}: accounts created`);
    t.equal((await sql`SELECT count(*)::int AS n FROM users WHERE is_admin`)[0]!.n, 1, `${registration}: one administrator`);
  }
});

t.test('invite: a token an administrator made, once, before it expires, for its address', async (t) => {
  const { app, sql } = await testApp(t, { config: { registration: 'invite' } });
  const admin = await register(app, 'admin@example.test');
  t.equal(admin.status, 201, 'the first account needs no invite');
  const token = admin.body.data.access_token;

  const none = await register(app, 'nobody@example.test');
  t.equal(none.status, 403);
  t.match(none.body.error.details, { setting: 'VANTAGE_REGISTRATION', registration: 'invite', reason: 'invite_token_required', fields: [{ path: 'invite_token' }] });
  const bogus = await register(app, 'nobody@example.test', { invite_token: 'itk_00000000000000000000000000000000' });
  t.equal(bogus.status, 403);
  t.equal(bogus.body.error.details.reason, 'invite_token_invalid');

  const open = await call(app, 'POST', '/v1/admin/invites', { token, body: {} });
  t.equal(open.status, 201, JSON.stringify(open.body));
  t.match(open.body.data, { id: /^inv_/, token: /^itk_[0-9a-z]{32}$/, email: null, status: 'pending' });
  const [stored] = await sql`SELECT token_hash FROM account_invites WHERE id = ${open.body.data.id}`;
  t.not(stored!.token_hash, open.body.data.token, 'only a hash is stored');

  const used = await register(app, 'dev@example.test', { invite_token: open.body.data.token });
  t.equal(used.status, 201);
  t.equal(used.body.meta.is_admin, false);
  const again = await register(app, 'dev2@example.test', { invite_token: open.body.data.token });
  t.equal(again.status, 403, 'single use');
  t.equal(again.body.error.details.reason, 'invite_token_invalid');

  const bound = await call(app, 'POST', '/v1/admin/invites', { token, body: { email: 'Alice@Example.test' } });
  const wrongAddress = await register(app, 'mallory@example.test', { invite_token: bound.body.data.token });
  t.equal(wrongAddress.status, 403, 'bound to another address');
  const taken = await register(app, 'DEV@example.test', { invite_token: (await call(app, 'POST', '/v1/admin/invites', { token, body: {} })).body.data.token });
  t.equal(taken.body.error.code, 'ACCOUNT_EMAIL_TAKEN');
  t.equal((await sql`SELECT count(*)::int AS n FROM account_invites WHERE used_at IS NULL`)[0]!.n, 2, 'a refused registration leaves its invite usable');
  t.equal((await register(app, 'alice@example.test', { invite_token: bound.body.data.token })).status, 201, 'its address, any case');

  const short = await call(app, 'POST', '/v1/admin/invites', { token, body: { expires_in_s: 300 } });
  await sql`UPDATE account_invites SET expires_at = now() - interval '1 second' WHERE id = ${short.body.data.id}`;
  const late = await register(app, 'late@example.test', { invite_token: short.body.data.token });
  t.equal(late.status, 403, 'expired');

  const list = await call(app, 'GET', '/v1/admin/invites', { token });
  t.equal(list.body.data.total, 4);
  t.same(list.body.data.invites.map((i: any) => i.status).sort(), ['expired', 'pending', 'used', 'used']);
  t.notOk(JSON.stringify(list.body).includes('itk_'), 'never the tokens');
  const pending = list.body.data.invites.find((i: any) => i.status === 'pending');
  t.equal((await call(app, 'DELETE', `/v1/admin/invites/${pending.id}`, { token })).status, 200);
  t.equal((await call(app, 'DELETE', `/v1/admin/invites/${pending.id}`, { token })).body.error.code, 'NOT_FOUND');
  t.equal((await call(app, 'DELETE', `/v1/admin/invites/${open.body.data.id}`, { token })).status, 404, 'a used invite stays');

  const bad = await call(app, 'POST', '/v1/admin/invites', { token, body: { expires_in_s: 10, email: 'x' } });
  t.equal(bad.status, 400);
  t.equal(bad.body.error.code, 'VALIDATION_FAILED');
  t.equal((await sql`SELECT count(*)::int AS n FROM account_invites`)[0]!.n, 3, 'nothing created by a bad request');
  t.equal(await count(sql), 3);
});

t.test('open registration ignores an invite token', async (t) => {
  const { app } = await testApp(t, { config: { registration: 'open' } });
  await registerUser(app);
  t.equal((await register(app, 'x@example.test', { invite_token: 'itk_whatever' })).status, 201);
});
