import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { createLogger } from '../log.js';
import { testDatabase } from '../test-support/db.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { KEY_CHECK_SETTING } from './key-check.db.js';
import { SecretsKeyRefused, settleSecretsKey } from './key-check.js';
import { secretKeyId } from './secret-box.js';

/* The database's secrets key check (key-check.ts) against the real Postgres server. */

const log = createLogger('silent');
const newKey = () => randomBytes(32).toString('base64');

/** A fresh empty folder, removed at teardown: a data folder of its own, as another working directory would give. */
function folder(t: { teardown(fn: () => unknown): void }): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'vantage-keycheck-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const settings = (data_dir: string, secrets_key?: string, previous: string[] = []) => ({ data_dir, secrets_key, secrets_keys_previous: previous, database_url: 'postgres://external' });

t.test('key A, then key B: refused with a message naming VANTAGE_SECRETS_KEY; rotation through the previous keys', async (t) => {
  const { sql } = await testDatabase(t);
  const dir = folder(t);
  const a = newKey();
  const b = newKey();
  t.equal(await settleSecretsKey(sql, settings(dir, a), log), a, 'the first start stores the check');
  t.equal(await settleSecretsKey(sql, settings(dir, a), log), a, 'the same key starts again');
  const stored = (await sql`SELECT value FROM platform_settings WHERE name = ${KEY_CHECK_SETTING}`)[0]!.value as string;
  t.match(stored, new RegExp(`^vsec1:${secretKeyId(a)}:`), 'a sealed check, naming the key by its id only');
  t.notMatch(stored, a);

  const err = await settleSecretsKey(sql, settings(dir, b), log).catch((e: unknown) => e);
  t.type(err, SecretsKeyRefused);
  t.match((err as Error).message, new RegExp(`^wrong secrets key: VANTAGE_SECRETS_KEY holds key ${secretKeyId(b)}, which cannot open this database's secrets \\(sealed with key ${secretKeyId(a)}\\); set VANTAGE_SECRETS_KEY to the key this database was set up with`));
  t.equal(readdirSync(dir).length, 0, 'no key file made');

  // Rotation: B current, A previous → accepted, and the check moves to B; then A alone is refused.
  t.equal(await settleSecretsKey(sql, settings(dir, b, [a]), log), b);
  t.match((await sql`SELECT value FROM platform_settings WHERE name = ${KEY_CHECK_SETTING}`)[0]!.value, new RegExp(`^vsec1:${secretKeyId(b)}:`));
  t.equal(await settleSecretsKey(sql, settings(dir, b), log), b, 'the earlier key is no longer needed');
  await t.rejects(settleSecretsKey(sql, settings(dir, a), log), SecretsKeyRefused, 'the old key alone is refused now');
});

t.test('no key and a database with a check: refused, and no key file is created', async (t) => {
  const { sql } = await testDatabase(t);
  const first = folder(t);
  const key = await settleSecretsKey(sql, settings(first), log);
  const made = path.join(first, 'secrets.key');
  t.equal(readFileSync(made, 'utf8').trim(), key, 'a new database: the key file is made and the check stored');
  t.equal(await settleSecretsKey(sql, settings(first), log), key, 'the same folder starts again');

  const other = folder(t);
  const err = await settleSecretsKey(sql, settings(other), log).catch((e: unknown) => e);
  t.type(err, SecretsKeyRefused);
  const tried = path.join(other, 'secrets.key');
  t.match((err as Error).message, `no secrets key: this database's secrets are sealed with key ${secretKeyId(key)}, VANTAGE_SECRETS_KEY is not set and the key file ${tried} does not exist`);
  t.match((err as Error).message, `tried ${tried}`);
  t.notOk(existsSync(tried), 'no second key file');
  t.same(readdirSync(other), [], 'nothing written in the folder');
  t.equal(await settleSecretsKey(sql, settings(other, key), log), key, 'the right key given as VANTAGE_SECRETS_KEY is accepted from anywhere');
});

t.test('instances starting at once from different folders: one key, one key file, the others refused', async (t) => {
  const { sql } = await testDatabase(t);
  const dirs = [folder(t), folder(t), folder(t), folder(t), folder(t)];
  const outcomes = await Promise.allSettled(dirs.map((dir) => settleSecretsKey(sql, settings(dir), log)));
  const won = outcomes.filter((o) => o.status === 'fulfilled');
  t.equal(won.length, 1, 'exactly one start succeeds');
  t.ok(outcomes.every((o) => o.status === 'fulfilled' || o.reason instanceof SecretsKeyRefused), 'the others are refused');
  t.equal(dirs.filter((d) => existsSync(path.join(d, 'secrets.key'))).length, 1, 'exactly one key file was made');
  // Several instances sharing one key start at once: all accepted.
  const shared = newKey();
  const { sql: sql2 } = await testDatabase(t);
  const all = await Promise.all(dirs.map((dir) => settleSecretsKey(sql2, settings(dir, shared), log)));
  t.same(all, dirs.map(() => shared), 'the same key everywhere: every instance starts');
});

t.test('a database from before key checks: its sealed secrets decide', async (t) => {
  const a = newKey();
  const { app, sql } = await testApp(t, { config: { secrets_key: a } });
  const user = await registerUser(app);
  const created = await call(app, 'POST', '/v1/monitors', { token: user.access_token, body: { name: 'api', type: 'https', target: 'https://93.184.215.14/health', node_count: 1, config: { headers: { Authorization: 'Bearer s3cret-token' } } } });
  t.equal(created.status, 201);
  t.equal((await sql`SELECT count(*)::int AS n FROM platform_settings WHERE name = ${KEY_CHECK_SETTING}`)[0]!.n, 0, 'no check yet');

  const empty = folder(t);
  await t.rejects(settleSecretsKey(sql, settings(empty), log), { name: 'SecretsKeyRefused', message: new RegExp(`^no secrets key: this database's monitors hold secrets sealed with key ${secretKeyId(a)}, but VANTAGE_SECRETS_KEY is not set`) });
  t.same(readdirSync(empty), [], 'no key file made');
  await t.rejects(settleSecretsKey(sql, settings(empty, newKey()), log), { message: /^wrong secrets key: this database's monitors hold secrets sealed with key [0-9a-f]{8}, but VANTAGE_SECRETS_KEY holds key/ });
  t.equal(await settleSecretsKey(sql, settings(empty, a), log), a, 'the key that sealed them is accepted');
  t.equal((await sql`SELECT count(*)::int AS n FROM platform_settings WHERE name = ${KEY_CHECK_SETTING}`)[0]!.n, 1, 'and the check is stored');
});
