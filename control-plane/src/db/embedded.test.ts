import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createApp } from '../app.js';
import { loadConfig } from '../config/index.js';
import { createHub } from '../hub/hub.js';
import { createLogger } from '../log.js';
import { createResultSink } from '../probes/sink.js';
import { createOutbound } from '../outbound.js';
import { call, registerUser } from '../test-support/app.js';
import { startEmbeddedPostgres } from './embedded.js';
import { migrate } from './migrate.js';
import { connect } from './sql.js';

t.test('the whole app on embedded PGlite: register, login, profile', async (t) => {
  const data_dir = await mkdtemp(join(tmpdir(), 'vantage-embedded-'));
  t.teardown(() => rm(data_dir, { recursive: true, force: true }));
  const pg = await startEmbeddedPostgres(data_dir);
  t.teardown(() => pg.close());
  const sql = connect(pg.url, 1); // as main.ts does in embedded mode
  t.teardown(() => sql.end({ timeout: 5 }));
  const applied = await migrate(sql);
  t.ok(applied.includes('0001_accounts.sql'), 'same migrations as a real server');
  t.same(await migrate(sql), [], 'a second start applies nothing');

  const config = loadConfig({}, { data_dir, log_level: 'silent' });
  const base = { config, sql, log: createLogger('silent') };
  const results = createResultSink(base);
  const hub = createHub({ ...base, results });
  t.teardown(() => hub.close());
  await hub.ready();
  const outbound = createOutbound(base, { listen: false });
  const app = createApp({ ...base, results, hub, events: outbound.events, mail: outbound.mail });
  const user = await registerUser(app);
  const login = await call(app, 'POST', '/v1/auth/login', { body: { email: user.email, password: user.password } });
  t.equal(login.status, 200);
  const patch = await call(app, 'PATCH', '/v1/account/profile', { token: login.body.data.access_token, body: { display_name: '測試 ✓', timezone: 'Asia/Shanghai', locale: 'cn' } });
  t.equal(patch.status, 200);
  const profile = await call(app, 'GET', '/v1/account/profile', { token: login.body.data.access_token });
  t.match(profile.body.data, { id: user.user_id, email: user.email, display_name: '測試 ✓', timezone: 'Asia/Shanghai', locale: 'cn' });
  t.ok(profile.headers.get('x-ratelimit-limit'), 'rate limiting works on PGlite too');
  const [row] = await sql<{ value: string }[]>`SELECT value FROM platform_settings WHERE name = 'jwt_hs256_key'`;
  t.ok(row && row.value.length >= 40, 'generated JWT key persisted in the database');
});
