import t from 'tap';
import { createApp } from '../app.js';
import { connect } from '../db/sql.js';
import { migrate } from '../db/migrate.js';
import { call, createApiKey, registerUser, testApp } from '../test-support/app.js';
import { startOwnPostgres } from '../../../test/faults/postgres.js';
import { freePort, waitUntil } from '../../../test/faults/ports.js';
import { DB_RETRY_AFTER_S } from './errors.js';

const STACK = /\bat [\w.<>]+ \(|\.[jt]s:\d+:\d+|"stack"/;

t.test('no Postgres listening: every route family answers 503 UNAVAILABLE with Retry-After', async (t) => {
  const { app, deps } = await testApp(t);
  const u = await registerUser(app);
  const key = await createApiKey(app, u.access_token);
  const dead = connect(`postgres://postgres@127.0.0.1:${await freePort('127.0.0.1')}/vantage`, 2);
  t.teardown(() => dead.end({ timeout: 1 }));
  const down = createApp({ ...deps, sql: dead });
  const cases: Array<[string, string, string, { token?: string; body?: unknown }]> = [
    ['anonymous (rate limit)', 'GET', '/v1/nodes', {}],
    ['login', 'POST', '/v1/auth/login', { body: { email: u.email, password: u.password } }],
    ['API key lookup', 'GET', '/v1/account/profile', { token: key.key }],
    ['session (JWT key and session row)', 'GET', '/v1/account/api-keys', { token: u.access_token }],
    ['probe task', 'GET', '/v1/probe/tasks/pt_01jd3k6w9z4q8r2t7v5x1y3b6c', {}],
  ];
  for (const [name, method, path, opts] of cases) {
    const r = await call(down, method, path, opts);
    t.equal(r.status, 503, name);
    t.equal(r.body?.error?.code, 'UNAVAILABLE', name);
    t.equal(r.headers.get('retry-after'), String(DB_RETRY_AFTER_S), `${name}: Retry-After`);
    t.notMatch(JSON.stringify(r.body), STACK, `${name}: no stack`);
    // doc_url names this service's own public address (docs/api/errors.md), never the database's.
    const { doc_url, ...error } = r.body?.error ?? {};
    t.match(doc_url, /\/docs\/api\/errors\.md#unavailable$/, `${name}: doc_url`);
    t.notMatch(JSON.stringify({ ...r.body, error }), /ECONNREFUSED|127\.0\.0\.1/, `${name}: no connection details`);
  }
});

t.test('Postgres stopped under load and started again: 503 while away, never 500, then 200', { timeout: 240_000 }, async (t) => {
  const pg = await startOwnPostgres();
  t.teardown(() => pg.destroy());
  const sql = connect(pg.url, 10);
  t.teardown(() => sql.end({ timeout: 1 }));
  await migrate(sql);
  const { deps } = await testApp(t);
  const app = createApp({ ...deps, sql });
  const u = await registerUser(app);
  const key = await createApiKey(app, u.access_token);

  const seen = new Map<number, number>();
  const bad: string[] = [];
  let stop = false;
  const worker = async (i: number) => {
    while (!stop) {
      const r = i % 2 === 0
        ? await call(app, 'GET', '/v1/account/profile', { token: key.key })
        : await call(app, 'GET', '/v1/account/api-keys', { token: u.access_token });
      seen.set(r.status, (seen.get(r.status) ?? 0) + 1);
      if (r.status !== 200 && !(r.status === 503 && r.body?.error?.code === 'UNAVAILABLE' && r.headers.get('retry-after') === String(DB_RETRY_AFTER_S))) {
        bad.push(`${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
      }
      if (r.status === 503) await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const workers = Array.from({ length: 8 }, (_, i) => worker(i));
  try {
    await waitUntil('load to be served', 30_000, () => ((seen.get(200) ?? 0) >= 50 ? true : null), 50);
    await pg.stop();
    await waitUntil('503 answers while the database is away', 30_000, () => ((seen.get(503) ?? 0) >= 20 ? true : null), 50);
    await pg.start();
    const ok_before = seen.get(200) ?? 0;
    await waitUntil('200 answers after the restart', 60_000, () => ((seen.get(200) ?? 0) >= ok_before + 50 ? true : null), 100);
  } finally {
    stop = true;
    await Promise.all(workers);
  }
  t.same(bad, [], 'every answer was 200 or 503 UNAVAILABLE with Retry-After');
  t.notOk(seen.has(500), `no 500 (statuses seen: ${JSON.stringify(Object.fromEntries(seen))})`);
  t.ok((seen.get(503) ?? 0) > 0, '503 while the database was away');
});
