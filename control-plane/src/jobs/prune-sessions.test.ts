import t from 'tap';
import { pruneEndedSessions } from '../accounts/sessions.db.js';
import { createLogger } from '../log.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { ENDED_SESSION_KEEP_MS, startSessionPruner } from './prune-sessions.js';

t.test('sessions ended more than a week ago are deleted with their refresh-token history; others stay', async (t) => {
  const { app, sql } = await testApp(t);
  const users = await Promise.all([0, 1, 2, 3].map(() => registerUser(app)));
  // Each session rotates once, so each has a history row; the current token of each is kept.
  const current: string[] = [];
  for (const u of users) {
    const r = await call(app, 'POST', '/v1/auth/refresh', { body: { refresh_token: u.refresh_token } });
    t.equal(r.status, 200);
    current.push(r.body.data.refresh_token);
  }
  const sessionOf = async (user_id: string) => (await sql<{ id: string }[]>`SELECT id FROM sessions WHERE user_id = ${user_id}`)[0]!.id;
  const [expired_old, revoked_old, expired_recent, live] = await Promise.all(users.map((u) => sessionOf(u.user_id)));
  await sql`UPDATE sessions SET expires_at = now() - interval '8 days' WHERE id = ${expired_old!}`;
  await sql`UPDATE sessions SET revoked_at = now() - interval '8 days' WHERE id = ${revoked_old!}`;
  await sql`UPDATE sessions SET expires_at = now() - interval '1 day' WHERE id = ${expired_recent!}`;
  t.equal((await sql`SELECT 1 FROM session_refresh_history`).length, 4, 'a history row per rotation');

  t.equal(await pruneEndedSessions(sql, new Date(Date.now() - ENDED_SESSION_KEEP_MS)), 2, 'the two ended over a week ago');
  const left = (await sql<{ id: string }[]>`SELECT id FROM sessions ORDER BY id`).map((r) => r.id);
  t.same(left, [expired_recent!, live!].sort(), 'a recently ended session and a live one stay');
  const history = (await sql<{ session_id: string }[]>`SELECT session_id FROM session_refresh_history ORDER BY session_id`).map((r) => r.session_id);
  t.same(history, [expired_recent!, live!].sort(), 'their history went with them');
  t.equal(await pruneEndedSessions(sql, new Date(Date.now() - ENDED_SESSION_KEEP_MS)), 0, 'idempotent');

  // A pruned session's current token is refused (now an unknown token); the live one still refreshes.
  t.equal((await call(app, 'POST', '/v1/auth/refresh', { body: { refresh_token: current[1]! } })).status, 401, 'a pruned session\'s refresh token is refused');
  t.equal((await call(app, 'POST', '/v1/auth/refresh', { body: { refresh_token: current[3]! } })).status, 200, 'the live session still refreshes');
});

t.test('the pruner runs at start', async (t) => {
  const { app, sql } = await testApp(t);
  const u = await registerUser(app);
  await sql`UPDATE sessions SET revoked_at = now() - interval '30 days' WHERE user_id = ${u.user_id}`;
  const stop = startSessionPruner({ sql, log: createLogger('silent') });
  t.teardown(stop);
  const deadline = Date.now() + 30_000;
  while ((await sql`SELECT 1 FROM sessions WHERE user_id = ${u.user_id}`).length > 0) {
    if (Date.now() > deadline) throw new Error('the ended session was not pruned within 30 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  t.pass('pruned without waiting for the hourly timer');
});
