import { execFile, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';
import { buildRuntime, RUNTIME_ENTRIES } from '../../installer/build-runtime.js';
import { testDatabase } from '../../control-plane/src/test-support/db.js';
import { controlPlaneProcess, freePort } from '../../control-plane/src/test-support/control-plane-process.js';

/*
 * Production runs from the build (installer/build-runtime.ts, `pnpm build`): a control plane and
 * an agent started by their launchers with NODE_ENV=production load no TypeScript and no tsx (a
 * module hook, module-trace.mjs, records every .ts or tsx module a process resolves), and work
 * together: the built agent enrolls with the built control plane and answers a tcp probe.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TRACE_HOOK = join(ROOT, 'test/ops/module-trace.mjs');
const AGENT_BIN = join(ROOT, 'node-agent/bin/node-agent.mjs');
const VANTAGE_BIN = join(ROOT, 'node-agent/bin/vantage.mjs');
const run = promisify(execFile);

async function ok(base: string, method: string, path: string, token: string | null, body?: unknown): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, bound_ms = 60_000): Promise<T> {
  const end = Date.now() + bound_ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`${what}: not within ${bound_ms} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

t.test('the build runs without TypeScript: control plane and agent from dist/', async (t) => {
  const built = await buildRuntime();
  t.same(built.map((b) => b.outfile), RUNTIME_ENTRIES.map((e) => join(ROOT, e.outfile)), 'every entry point built');
  for (const b of built) {
    const text = readFileSync(b.outfile, 'utf8');
    t.notMatch(text, /from ["']tsx|import\(["']tsx/, `${e(b.outfile)} imports no tsx`);
    t.notMatch(text, /from ["']@vantage\//, `${e(b.outfile)} resolves no workspace package at run time`);
  }

  const dir = mkdtempSync(join(tmpdir(), 'vantage-prod-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const trace = join(dir, 'typescript-modules.txt');
  writeFileSync(trace, '');
  const traced = { NODE_ENV: 'production', NODE_OPTIONS: `--import=${TRACE_HOOK}`, VANTAGE_MODULE_TRACE: trace };

  // The hook sees TypeScript when there is some: the development launcher, through tsx.
  const control = join(dir, 'control.txt');
  writeFileSync(control, '');
  await run(process.execPath, [AGENT_BIN, 'version'], { env: { PATH: process.env.PATH, NODE_OPTIONS: `--import=${TRACE_HOOK}`, VANTAGE_MODULE_TRACE: control } });
  t.match(readFileSync(control, 'utf8'), /node-agent\/src\/cli\/main\.ts/, 'control: the development launcher loads src/*.ts through tsx');

  const agentVersion = await run(process.execPath, [AGENT_BIN, 'version'], { env: { PATH: process.env.PATH, ...traced } });
  t.match(agentVersion.stdout, /^node-agent \d+\.\d+\.\d+/, 'the built agent answers `version`');
  const schema = await run(process.execPath, [VANTAGE_BIN, 'schema'], { env: { PATH: process.env.PATH, ...traced } });
  t.match(JSON.parse(schema.stdout), { $schema: String }, 'the built vantage CLI prints the as-code JSON Schema');

  const target: Server = createServer((s) => s.end());
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => target.close(() => r())));

  const db = await testDatabase(t);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const cp = controlPlaneProcess(t, {
    ...traced, VANTAGE_DATABASE_URL: db.url, VANTAGE_PORT: String(port), VANTAGE_HOST: '127.0.0.1', VANTAGE_DATA_DIR: join(dir, 'cp'),
    VANTAGE_SECRETS_KEY: randomBytes(32).toString('hex'), VANTAGE_LOG_LEVEL: 'warn', VANTAGE_PROBE_ALLOW_CIDRS: '127.0.0.0/8',
  });
  await cp.start(base);
  const reg = await ok(base, 'POST', '/v1/auth/register', null, { email: 'prod@example.test', password: `pw-${randomBytes(9).toString('hex')}` });
  const token = reg.data.access_token as string;
  const ent = (await ok(base, 'POST', '/v1/enrollment-tokens', token, { label: 'built-agent', country_code: 'DE' })).data.token as string;

  const agent = spawn(process.execPath, [AGENT_BIN, 'run', '--control-plane-url', base, '--state-dir', join(dir, 'agent'), '--allow-cidrs', '127.0.0.0/8', '--log-level', 'warn'], {
    env: { PATH: process.env.PATH, ...traced, VANTAGE_AGENT_TOKEN: ent }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let agentLog = '';
  agent.stdout.on('data', (d: Buffer) => { agentLog += d.toString(); });
  agent.stderr.on('data', (d: Buffer) => { agentLog += d.toString(); });
  t.teardown(() => { if (agent.exitCode === null) agent.kill('SIGKILL'); });

  const node = await until(`the built agent online (agent log: ${agentLog.slice(-2000)})`, async () => {
    const list = await ok(base, 'GET', '/v1/nodes?mine=true', token);
    return (list.data.items as Array<{ id: string; status: string }>).find((n) => n.status === 'online');
  });
  t.ok(node.id, 'the built agent enrolled and is online');
  const probe = await ok(base, 'POST', '/v1/probe/tcp', token, { target: `127.0.0.1:${(target.address() as AddressInfo).port}` });
  const done = await until('the probe completes', async () => {
    const poll = await ok(base, 'GET', `/v1/probe/tasks/${probe.data.task_id}`, token);
    return poll.data.status === 'completed' ? poll.data : null;
  });
  t.equal(done.summary?.successful ?? done.node_results?.filter((r: { success: boolean }) => r.success).length, 1, 'the tcp probe ran on the built agent and succeeded');

  t.equal(readFileSync(trace, 'utf8'), '', 'no TypeScript module and no tsx loaded by the built control plane, agent or CLI');
});

/** A repository-relative path, for messages. */
function e(path: string): string {
  return path.slice(ROOT.length);
}

t.test('NODE_ENV=production without a build: the launchers stop and say to build', async (t) => {
  // The launchers, copied with what they read beside them, into a folder that has no dist/.
  const dir = mkdtempSync(join(tmpdir(), 'vantage-nobuild-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const pkg of ['control-plane', 'node-agent']) {
    cpSync(join(ROOT, pkg, 'bin'), join(dir, pkg, 'bin'), { recursive: true });
    cpSync(join(ROOT, pkg, 'package.json'), join(dir, pkg, 'package.json'));
  }
  for (const bin of ['control-plane/bin/control-plane.mjs', 'node-agent/bin/node-agent.mjs', 'node-agent/bin/vantage.mjs']) {
    const r = spawnSync(process.execPath, [join(dir, bin)], { env: { PATH: process.env.PATH, NODE_ENV: 'production' }, encoding: 'utf8', timeout: 60_000 });
    t.equal(r.status, 1, `${bin}: status 1`);
    t.match(r.stderr, /NODE_ENV=production runs dist\/.*missing: run `pnpm build` first/, `${bin}: says to build`);
  }
});
