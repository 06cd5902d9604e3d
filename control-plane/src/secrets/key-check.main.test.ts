import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { testDatabase } from '../test-support/db.js';

/* The control plane's start with a secrets key its database does not know: it stops, saying why. */

const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));
/** Generous bound for a start (and its stop) on a busy machine. */
const BOUND_MS = 120_000;

/**
 * Run the control plane with `env` (a value '' leaves the variable unset) until it listens (then SIGTERM) or exits by itself.
 * @returns its exit code, whether it listened, and its output
 */
async function start(env: Record<string, string>): Promise<{ code: number | null; listened: boolean; log: string }> {
  const vars: Record<string, string | undefined> = { ...process.env, VANTAGE_HOST: '127.0.0.1', VANTAGE_PORT: '0', VANTAGE_LOG_LEVEL: 'info', VANTAGE_SHUTDOWN_GRACE_MS: '1000', ...env };
  for (const [name, value] of Object.entries(vars)) if (value === '') delete vars[name]; // '' means unset
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: vars,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  let listened = false;
  const timer = setTimeout(() => child.kill('SIGKILL'), BOUND_MS);
  child.stdout.on('data', (d: Buffer) => {
    log += d.toString();
    if (!listened && log.includes('"msg":"control plane listening"')) {
      listened = true;
      child.kill('SIGTERM');
    }
  });
  child.stderr.on('data', (d: Buffer) => { log += d.toString(); });
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, listened, log };
}

t.test('started with key A, then key B, then with no key from another folder: refused, no key made', async (t) => {
  const { url } = await testDatabase(t);
  const dir = mkdtempSync(path.join(tmpdir(), 'vantage-keycheck-main-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const a = randomBytes(32).toString('base64');
  const first = await start({ VANTAGE_DATABASE_URL: url, VANTAGE_SECRETS_KEY: a, VANTAGE_DATA_DIR: dir });
  if (!first.listened) t.comment(first.log.slice(-4000));
  t.ok(first.listened, 'key A: the control plane starts');

  const second = await start({ VANTAGE_DATABASE_URL: url, VANTAGE_SECRETS_KEY: randomBytes(32).toString('base64'), VANTAGE_DATA_DIR: dir });
  t.notOk(second.listened, 'key B: it does not listen');
  t.equal(second.code, 1, 'and exits with status 1');
  t.match(second.log, /"level":60,.*"msg":"cannot start: wrong secrets key: VANTAGE_SECRETS_KEY holds key [0-9a-f]{8}, which cannot open this database's secrets \(sealed with key [0-9a-f]{8}\); set VANTAGE_SECRETS_KEY to the key/);

  const third = await start({ VANTAGE_DATABASE_URL: url, VANTAGE_SECRETS_KEY: '', VANTAGE_DATA_DIR: dir });
  t.equal(third.code, 1, 'no key: refused too');
  t.match(third.log, new RegExp(`"msg":"cannot start: no secrets key: .*VANTAGE_SECRETS_KEY is not set and the key file ${path.join(dir, 'secrets.key')} does not exist`));
  t.same(readdirSync(dir), [], 'no key file was generated');
});
