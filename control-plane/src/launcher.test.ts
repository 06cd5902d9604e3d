import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { configSchema } from './config/index.js';

const BIN = fileURLToPath(new URL('../bin/control-plane.mjs', import.meta.url));
const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
/** Generous bound on a loaded machine; --help itself answers in well under a second. */
const EXIT_BOUND_MS = 60_000;

/**
 * Run the launcher in an empty folder. The environment holds an invalid port, so a launcher that
 * started the server anyway would stop at once on the configuration instead of running on.
 */
async function launch(t: { teardown(fn: () => unknown): void }, args: string[]) {
  const cwd = mkdtempSync(join(tmpdir(), 'vantage-launcher-'));
  t.teardown(() => rmSync(cwd, { recursive: true, force: true }));
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd,
    env: { PATH: process.env.PATH, VANTAGE_PORT: 'not-a-port', VANTAGE_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL'); });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
  const code = await new Promise<number | null>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no exit within ${EXIT_BOUND_MS} ms:\n${stdout}${stderr}`)), EXIT_BOUND_MS);
    child.on('exit', (c) => { clearTimeout(timer); resolve(c); });
  });
  return { code, stdout, stderr, left: readdirSync(cwd) };
}

t.test('--help prints usage and exits 0, creating nothing', async (t) => {
  for (const flag of ['--help', '-h']) {
    const r = await launch(t, [flag]);
    t.equal(r.code, 0, `${flag}: status 0 (${r.stderr})`);
    t.match(r.stdout, /Vantage control plane/);
    t.match(r.stdout, /VANTAGE_DATABASE_URL/);
    t.match(r.stdout, /docs\/operators\/configuration\.md/);
    t.equal(r.stderr, '');
    t.same(r.left, [], `${flag}: nothing created in the current folder (no .data)`);
  }
});

t.test('--version prints the package version', async (t) => {
  const r = await launch(t, ['--version']);
  t.equal(r.code, 0);
  t.equal(r.stdout, `${VERSION}\n`);
  t.same(r.left, []);
});

t.test('an unknown argument: usage on stderr, status 2, nothing started', async (t) => {
  for (const args of [['--port', '9000'], ['serve'], ['--help', '--bogus']]) {
    const r = await launch(t, args);
    t.equal(r.code, 2, `${args.join(' ')}: status 2`);
    t.equal(r.stdout, '');
    t.match(r.stderr, new RegExp(`unknown argument ${args.find((a) => a !== '--help')}`));
    t.match(r.stderr, /Usage: control-plane\.mjs/);
    t.same(r.left, []);
  }
});

t.test('every setting the usage names is a real one', async (t) => {
  const { USAGE } = (await import(new URL('../bin/usage.mjs', import.meta.url).href)) as { USAGE: string };
  const named = [...new Set(USAGE.match(/VANTAGE_[A-Z0-9_]+/g))];
  t.ok(named.length >= 5);
  const fields = new Set(Object.keys(configSchema.shape).map((k) => `VANTAGE_${k.toUpperCase()}`));
  for (const name of named) t.ok(fields.has(name), `${name} is a configuration field`);
});
