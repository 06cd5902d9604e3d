import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { connect } from '../../control-plane/src/db/sql.js';
import { loadConfig } from '../../control-plane/src/config/index.js';
import { createLogger } from '../../control-plane/src/log.js';
import { createResultSink } from '../../control-plane/src/probes/sink.js';
import { createCheckStore } from '../../control-plane/src/checks/ingest.js';
import { httpResult, roundAt, seedMonitor } from '../../control-plane/src/checks/test-support.js';
import { TEST_DATABASE_URL, testDatabase } from '../../control-plane/src/test-support/db.js';
import { CONTROL_PLANE_BIN, controlPlaneProcess, freePort } from '../../control-plane/src/test-support/control-plane-process.js';

/*
 * The backup and restore of docs/operators/deployment.md, as written there: `pg_dump -Fc` of a
 * database holding monitors and checks (Debian's postgresql-client against the real local
 * Postgres), `pg_restore` into a new database, a control plane started on the restored copy with
 * the same secrets key (another key is refused), and the monitors and their checks read back
 * through the API equal to what the original answered.
 */

const run = promisify(execFile);
const PG_DUMP = '/usr/bin/pg_dump';
const PG_RESTORE = '/usr/bin/pg_restore';

async function api(base: string, method: string, path: string, token: string | null, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

async function ok(base: string, method: string, path: string, token: string | null, body?: unknown): Promise<any> {
  const r = await api(base, method, path, token, body);
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** What the API shows of an account's monitors and of each one's checks. */
async function snapshot(base: string, key: string, monitor_ids: string[]) {
  const list = await ok(base, 'GET', '/v1/monitors?limit=100', key);
  const checks: Record<string, unknown> = {};
  const from = new Date(Date.now() - 7 * 86_400_000).toISOString();
  for (const id of monitor_ids) checks[id] = (await ok(base, 'GET', `/v1/monitors/${id}/checks?from=${encodeURIComponent(from)}&page_size=100`, key)).data;
  const monitors = (list.data.items as Array<Record<string, unknown>>).map((m) => ({ id: m.id, name: m.name, type: m.type, target: m.target, interval_s: m.interval_s, config: m.config }));
  return { monitors, checks };
}

t.test('pg_dump, pg_restore into a new database, a control plane on it: the same monitors and checks', {
  skip: existsSync(PG_DUMP) && existsSync(PG_RESTORE) ? false : 'pg_dump/pg_restore missing (apt-get install postgresql-client; test/env/provision.sh installs it)',
}, async (t) => {
  const source = await testDatabase(t);
  const secrets_key = randomBytes(32).toString('hex');
  const env = (database_url: string, port: number, data_dir: string) => ({
    VANTAGE_DATABASE_URL: database_url, VANTAGE_PORT: String(port), VANTAGE_HOST: '127.0.0.1', VANTAGE_SECRETS_KEY: secrets_key,
    VANTAGE_DATA_DIR: data_dir, VANTAGE_LOG_LEVEL: 'warn', VANTAGE_REGISTRATION: 'open', VANTAGE_PROBE_ALLOW_CIDRS: '127.0.0.0/8',
  });
  const dir = mkdtempSync(join(tmpdir(), 'vantage-backup-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));

  // The original deployment: an account with an API key, a monitor made through the API, and two
  // monitors with checks stored through the control plane's own result sink.
  const portA = await freePort();
  const a = controlPlaneProcess(t, env(source.url, portA, join(dir, 'a')));
  const baseA = `http://127.0.0.1:${portA}`;
  await a.start(baseA);
  const reg = await ok(baseA, 'POST', '/v1/auth/register', null, { email: 'backup@example.test', password: `pw-${randomBytes(9).toString('hex')}` });
  const { key } = (await ok(baseA, 'POST', '/v1/account/api-keys', reg.data.access_token, { name: 'backup test' })).data as { key: string };
  const made = (await ok(baseA, 'POST', '/v1/monitors', key, { name: 'made through the API', type: 'http', target: 'http://127.0.0.1:9/health', interval_s: 300 })).data as { id: string };
  const config = loadConfig({}, { database_url: 'postgres://unused', log_level: 'silent', checks_round_grace_ms: 120_000 });
  const sink = createResultSink({ sql: source.sql, log: createLogger('silent'), config, checks: createCheckStore({ config }) });
  const seeded = [await seedMonitor(source.sql, { user_id: reg.data.user_id, nodes: 2 }), await seedMonitor(source.sql, { user_id: reg.data.user_id, nodes: 1 })];
  let stored = 0;
  for (const m of seeded) {
    for (const node of m.node_ids) {
      for (const k of [-3, -2, -1]) {
        const r = httpResult(m.monitor_id, roundAt(m, k), k === -2 ? { success: false, error: 'timeout' } : { response_ms: 40 + k });
        stored += (await sink.ingest(node, [r])).stored.length;
      }
    }
  }
  t.equal(stored, 9, 'nine checks stored in the original database');
  const ids = [made.id, ...seeded.map((m) => m.monitor_id)];
  const before = await snapshot(baseA, key, ids);
  t.equal(before.monitors.length, 3, 'three monitors through the API');
  t.equal(Object.values(before.checks).reduce((n: number, c) => n + (c as { total: number }).total, 0), 9, 'nine checks through the API');

  // The backup, with the control plane still running (pg_dump reads one consistent snapshot).
  const file = join(dir, 'vantage.dump');
  await run(PG_DUMP, ['--format=custom', `--file=${file}`, source.url]);
  t.ok(statSync(file).size > 10_000, `a dump was written (${statSync(file).size} bytes)`);
  await a.kill9();

  // The restore into a database that did not exist, as after losing the server.
  const name = `vantage_restored_${randomBytes(4).toString('hex')}`;
  const admin = connect(TEST_DATABASE_URL, 1);
  t.teardown(async () => {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end({ timeout: 5 });
  });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const restoredUrl = Object.assign(new URL(TEST_DATABASE_URL), { pathname: `/${name}` }).toString();
  await run(PG_RESTORE, ['--no-owner', '--exit-on-error', `--dbname=${restoredUrl}`, file]);

  // Without the secrets key the restored database was set up with, a control plane refuses it.
  const wrongKey = spawn(process.execPath, [CONTROL_PLANE_BIN], {
    env: { PATH: process.env.PATH, ...env(restoredUrl, await freePort(), join(dir, 'wrong')), VANTAGE_SECRETS_KEY: randomBytes(32).toString('hex') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => { if (wrongKey.exitCode === null) wrongKey.kill('SIGKILL'); });
  let wrongLog = '';
  wrongKey.stdout.on('data', (d: Buffer) => { wrongLog += d.toString(); });
  const wrongExit = await new Promise<number | null>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`a control plane with another secrets key did not stop within 90 s:\n${wrongLog}`)), 90_000);
    wrongKey.on('exit', (code) => { clearTimeout(timer); resolve(code); });
  });
  t.not(wrongExit, 0, 'with another secrets key the restored database is refused');
  t.match(wrongLog, /cannot start: .*VANTAGE_SECRETS_KEY/, 'naming the key');

  const portB = await freePort();
  const b = controlPlaneProcess(t, env(restoredUrl, portB, join(dir, 'b')));
  const baseB = `http://127.0.0.1:${portB}`;
  await b.start(baseB);
  const ready = await api(baseB, 'GET', '/readyz', null);
  t.equal(ready.status, 200, `the restored control plane is ready (${JSON.stringify(ready.body)})`);
  const after = await snapshot(baseB, key, ids);
  t.same(after, before, 'the same monitors and checks, through the same API key');
  const again = await api(baseB, 'POST', '/v1/monitors', key, { name: 'after the restore', type: 'http', target: 'http://127.0.0.1:9/', interval_s: 300 });
  t.equal(again.status, 201, 'and the restored deployment takes writes');
});
