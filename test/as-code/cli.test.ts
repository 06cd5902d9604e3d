import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { runVantage } from '../../node-agent/src/cli/vantage/commands.js';
import type { VantageIo } from '../../node-agent/src/cli/vantage/io.js';
import { waitFor } from '../../control-plane/src/hub/test-harness.js';
import { createApiKey, registerUser, testApp } from '../../control-plane/src/test-support/app.js';
import { REPO } from '../e2e/control-plane.js';
import { startRealAgent } from './real-agent.js';

/*
 * The `vantage` CLI against a real control plane on loopback with a real agent: login, plan
 * (exit 2 while changes are pending), apply, monitors table, a probe with progress and a table,
 * events tail, JSON output, and the bin itself as a child process.
 */

const LOOPBACK = ['127.0.0.0/8'];
const { app, sql, url } = await testApp(t, { config: { probe_allow_cidrs: LOOPBACK, delivery_allow_cidrs: LOOPBACK, public_probes: 'anonymous' } });
const user = await registerUser(app);
const { key } = await createApiKey(app, user.access_token);
const dir = mkdtempSync(join(tmpdir(), 'vantage-cli-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const target: Server = createServer((s) => s.end());
await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
t.teardown(() => new Promise<void>((resolve) => target.close(() => resolve())));
const port = (target.address() as AddressInfo).port;

async function vantage(...argv: string[]): Promise<{ code: number; out: string; err: string; status: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const status: string[] = [];
  const io: VantageIo = {
    out: (s) => out.push(s), err: (s) => err.push(s), status: (s) => status.push(s),
    env: { VANTAGE_CONFIG_DIR: dir, HOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwAAAAAAAAAA==' },
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)), readStdin: async () => '',
  };
  const code = await runVantage(argv, io);
  return { code, out: out.join('\n'), err: err.join('\n'), status };
}

t.test('login, plan, apply, monitors, export, events', async (t) => {
  t.equal((await vantage('plan', 'x.yaml')).code, 64, 'not logged in: usage');
  t.equal((await vantage('login', '--url', url, '--key', 'sk_live_nope')).code, 1, 'a bad key is refused');
  const login = await vantage('login', '--url', url, '--key', key);
  t.equal(login.code, 0, login.err);
  const f = join(dir, 'm.yaml');
  writeFileSync(f, `version: 1\nmonitors:\n  Loop:\n    type: tcp\n    target: "127.0.0.1:${port}"\n`);
  const plan = await vantage('plan', f);
  t.equal(plan.code, 2, 'changes pending');
  t.match(plan.out, 'Plan: 1 to create, 0 to change, 0 to delete.');
  const applied = await vantage('apply', f);
  t.equal(applied.code, 0, applied.err);
  t.match(applied.out, 'created monitor "Loop"');
  t.equal((await vantage('plan', f)).code, 0, 'nothing pending after apply');
  const json = JSON.parse((await vantage('plan', f, '--json')).out);
  t.same(json, { ok: true, summary: { create: 0, update: 0, delete: 0 }, changes: [] });

  const list = await vantage('monitors');
  t.match(list.out, /Loop.*tcp.*127\.0\.0\.1.*m\.yaml/s, 'the table shows the monitor and its file');
  const [m] = JSON.parse((await vantage('monitors', 'list', '--json')).out) as Array<{ id: string }>;
  t.equal((await vantage('monitors', 'pause', m!.id)).code, 0);
  t.equal((await vantage('monitors', 'pause', 'm_nope')).code, 1, 'an unknown id fails');
  t.match((await vantage('export')).out, 'Loop:');
  t.equal((await vantage('events', 'tail', '--once')).code, 0);
  t.equal((await vantage('frobnicate')).code, 64);
});

t.test('probe: progress while nodes answer, then a table', async (t) => {
  await startRealAgent(t, { url, sql, user_id: user.user_id, country: 'DE' });
  await waitFor(async () => (await sql`SELECT count(*)::int AS n FROM nodes WHERE status = 'online'`)[0]!.n === 1);
  const run = await vantage('probe', 'tcp', `127.0.0.1:${port}`, '--nodes', '1');
  t.equal(run.code, 0, run.err);
  t.match(run.status.join('\n'), /tcp 127\.0\.0\.1:\d+: 0\/1 nodes answered|1\/1 nodes answered/, 'live progress');
  t.match(run.out, /ok/);
  t.match(run.out, /task pt_\w+: completed/);
});

t.test('the bin runs as a process', async (t) => {
  const { stdout } = await promisify(execFile)(join(REPO, 'node-agent/bin/vantage.mjs'), ['schema'], { env: { ...process.env, NODE_OPTIONS: '' } });
  t.match(JSON.parse(stdout), { title: 'Vantage monitoring as code, version 1' });
  const failed = await promisify(execFile)(join(REPO, 'node-agent/bin/vantage.mjs'), ['plan', join(dir, 'm.yaml')], { env: { ...process.env, NODE_OPTIONS: '', VANTAGE_URL: url, VANTAGE_API_KEY: key } }).catch((e: { code: number; stdout: string }) => e);
  t.equal((failed as { code: number }).code, undefined, 'exit 0: nothing pending');
});
