import { readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
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
import { initEmbeddedDataDir, isEmbeddedDataDir, startEmbeddedPostgres } from './embedded.js';
import { migrate } from './migrate.js';
import { connect } from './sql.js';

// initdb takes 15-60 s on a loaded machine, and the file makes three databases.
t.setTimeout(600_000);

/** This process's peak resident memory so far (VmHWM), MiB. */
const peakMiB = () => Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024;

// First in the file: the peak-memory figure is only telling before anything else grew the process.
t.test('a fresh embedded database is made by initdb in a child process: this process stays small', { timeout: 300_000 }, async (t) => {
  const data_dir = await mkdtemp(join(tmpdir(), 'vantage-embedded-'));
  t.teardown(() => rm(data_dir, { recursive: true, force: true }));
  const before = peakMiB();
  const pg = await startEmbeddedPostgres(data_dir, { shared_buffers_mb: 16 });
  t.teardown(() => pg.close());
  const grown = peakMiB() - before;
  // initdb in this process grew it by 0.7-0.8 GiB; opening a made folder with 16 MB of buffers costs about 0.1.
  t.ok(grown < 400, `peak memory grew by ${grown.toFixed(0)} MiB (under 400)`);
  t.ok(isEmbeddedDataDir(join(data_dir, 'pglite')), 'the data folder is complete');
  t.same((await readdir(data_dir)).sort(), ['pglite'], 'no temporary folder left beside it');
  const sql = connect(pg.url, 1);
  t.teardown(() => sql.end({ timeout: 5 }));
  const [row] = await sql<{ shared_buffers: string }[]>`SHOW shared_buffers`;
  t.equal(row!.shared_buffers, '16MB', 'shared_buffers as configured');
});

t.test('initEmbeddedDataDir: a complete folder is kept, an empty one is made, a failure says why', { timeout: 300_000 }, async (t) => {
  const parent = await mkdtemp(join(tmpdir(), 'vantage-embedded-'));
  t.teardown(() => rm(parent, { recursive: true, force: true }));
  const dir = join(parent, 'pglite');
  await mkdir(dir); // an empty folder, as an interrupted older version left it
  await initEmbeddedDataDir(dir);
  t.ok(isEmbeddedDataDir(dir));
  const made = statSync(join(dir, 'PG_VERSION')).mtimeMs;
  await initEmbeddedDataDir(dir);
  t.equal(statSync(join(dir, 'PG_VERSION')).mtimeMs, made, 'a complete folder is not made again');
  // A parent that is a file: initdb cannot write there.
  const blocked = join(parent, 'PG_VERSION-file', 'pglite');
  await writeFile(join(parent, 'PG_VERSION-file'), 'x');
  await t.rejects(initEmbeddedDataDir(blocked), /cannot create the embedded database|ENOTDIR|EEXIST/);
});

t.test('the whole app on embedded PGlite: register, login, profile', { timeout: 300_000 }, async (t) => {
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
