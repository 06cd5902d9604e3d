import t from 'tap';
import { newId } from '@vantage/shared-protocol';
import { testDatabase } from '../test-support/db.js';
import { insertAdminAudit, isAdminUser, listAdminAudit, setAdminUser } from './admin.db.js';

/*
 * Who is an operator administrator (docs/operators/self-hosting.md "Administrators"): an account
 * marked in the database, or one whose verified e-mail VANTAGE_ADMIN_EMAILS lists; never an
 * unverified or disabled one.
 */

t.test('administrators: marked accounts and verified listed addresses only', async (t) => {
  const { sql } = await testDatabase(t);
  const user = async (email: string, verified: boolean, status = 'active') => {
    const id = newId('user');
    await sql`INSERT INTO users (id, email, email_verified, password_hash, status) VALUES (${id}, ${email}, ${verified}, 'x', ${status})`;
    return id;
  };
  const listed = await user('Ops@Example.test', true);
  const squatter = await user('boss@example.test', false);
  const marked = await user('first@example.test', false);
  const disabled = await user('gone@example.test', true, 'disabled');
  const plain = await user('someone@example.test', true);
  const emails = ['ops@example.test', 'boss@example.test', 'gone@example.test'];

  t.equal(await isAdminUser(sql, listed, emails), true, 'listed, verified (case-insensitive)');
  t.equal(await isAdminUser(sql, squatter, emails), false, 'listed but unverified');
  t.equal(await isAdminUser(sql, plain, emails), false, 'not listed');
  t.equal(await isAdminUser(sql, disabled, emails), false, 'disabled');
  t.equal(await isAdminUser(sql, newId('user'), emails), false, 'unknown');
  t.equal(await isAdminUser(sql, marked, []), false);
  t.equal(await setAdminUser(sql, marked, true), true);
  t.equal(await isAdminUser(sql, marked, []), true, 'marked in the database');
  t.equal(await setAdminUser(sql, newId('user'), true), false, 'unknown user: nothing marked');

  await insertAdminAudit(sql, { actor_user_id: marked, action: 'account.create', target_id: plain, details: { email: 'someone@example.test' } });
  await insertAdminAudit(sql, { actor_user_id: marked, action: 'node.platform', target_id: null });
  const log = await listAdminAudit(sql, 10);
  t.same(log.map((e) => [e.action, e.target_id, e.details]), [['node.platform', null, {}], ['account.create', plain, { email: 'someone@example.test' }]], 'newest first');
});
