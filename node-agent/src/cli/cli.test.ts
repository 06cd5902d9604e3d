import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { newId } from '@vantage/shared-protocol';
import { ControlPlaneStub } from '../connection/test-support/control-plane-stub.js';
import { eventually } from '../connection/test-support/helpers.js';
import { openStateDb } from '../state/db.js';
import { parseCli } from './args.js';
import { readStatus, type StatusReport } from './status.js';

const BIN = fileURLToPath(new URL('../../bin/node-agent.mjs', import.meta.url));

interface Ran { code: number | null; signal: NodeJS.Signals | null; out: string; err: string }

/** Start the real `node-agent` CLI; `done` resolves with its exit and output. */
function start(args: string[], env: Record<string, string> = {}): { child: ChildProcess; done: Promise<Ran>; out: () => string } {
  const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { err += d; });
  const done = new Promise<Ran>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, out, err })));
  return { child, done, out: () => out };
}

function status(dir: string): StatusReport {
  const db = openStateDb(dir, { must_exist: true });
  try {
    return readStatus(db, dir);
  } finally {
    db.close();
  }
}

t.test('version, help and bad input', async (t) => {
  const v = await start(['version']).done;
  t.equal(v.code, 0);
  t.match(v.out, /^node-agent \d+\.\d+\.\d+ \(protocol 3, accepts 2-3\)/);
  const bad = await start(['launch']).done;
  t.equal(bad.code, 2);
  t.match(bad.err, /unknown command: launch/);
  const conf = await start(['status', '--concurrency', 'many']).done;
  t.equal(conf.code, 2);
  t.match(conf.err, /concurrency \(from flag --concurrency\)/);
  const env = await start(['status'], { VANTAGE_AGENT_QUEUE_MAX: '-3' }).done;
  t.match(env.err, /queue_max \(from env VANTAGE_AGENT_QUEUE_MAX\)/);
  const none = await start(['status', '--state-dir', t.testdir()]).done;
  t.equal(none.code, 1);
  t.match(none.err, /no state DB/);
  const noToken = await start(['enroll', '--state-dir', t.testdir(), '--control-plane-url', 'http://127.0.0.1:1']).done;
  t.equal(noToken.code, 2);
  t.match(noToken.err, /enroll needs an enrollment token/);
});

t.test('run: enroll, run tasks with the real probe engine, survive kill -9, stop softly on SIGTERM', async (t) => {
  const target = net.createServer((c) => c.destroy());
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  t.teardown(() => target.close());
  const port = (target.address() as net.AddressInfo).port;
  const cp = new ControlPlaneStub({ auto_ack: false });
  await cp.listen();
  t.teardown(() => cp.kill());
  const dir = path.join(t.testdir(), 'state');
  const token = cp.issueToken();
  const args = ['run', '--state-dir', dir, '--control-plane-url', cp.url, '--allow-cidrs', '127.0.0.0/8', '--log-level', 'debug'];

  const first = start(args, { VANTAGE_AGENT_TOKEN: token });
  t.teardown(() => first.child.kill('SIGKILL'));
  await cp.waitFor((m) => m.type === 'outbox.stats', 60_000);
  const tasks = Array.from({ length: 5 }, () => newId('probe_task'));
  for (const task_id of tasks) {
    cp.broadcast({ type: 'task.run', task_id, timeout_ms: 5000, policy: { allow_private: false, allow_cidrs: ['127.0.0.0/8'] }, check: { type: 'tcp', target: `127.0.0.1:${port}`, params: { port, timeout_ms: 5000, ip_version: 'auto' } } });
  }
  await cp.until(() => cp.results.size === 5);
  t.ok([...cp.results.values()].every((r) => r.success && r.type === 'tcp' && (r.output as { state?: string } | null)?.state === 'open'), 'real tcp checks succeeded');
  first.child.kill('SIGKILL');
  const killed = await first.done;
  t.equal(killed.signal, 'SIGKILL');
  const credential = [...cp.credentials.keys()][0]!;
  t.notMatch(killed.out + killed.err, token, 'token never logged');
  t.notMatch(killed.out + killed.err, credential, 'credential never logged');

  const after = status(dir);
  t.equal(after.outbox_pending, 5, 'unacked results survived kill -9');
  t.equal(after.node_id, cp.credentials.get(credential));
  const table = await start(['status', '--state-dir', dir]).done;
  t.match(table.out, /outbox pending\s*│\s*5/);
  t.notMatch(table.out, credential);

  const before = cp.results.size;
  cp.results.clear();
  cp.auto_ack = true;
  const second = start(args); // no token needed any more
  t.teardown(() => second.child.kill('SIGKILL'));
  await cp.until(() => cp.results.size === before, 60_000);
  await eventually(() => status(dir).outbox_pending === 0, 'outbox drained', 60_000);
  second.child.kill('SIGTERM');
  const stopped = await second.done;
  t.equal(stopped.code, 0, 'soft shutdown exits 0');
  t.match(stopped.out, /shutting down/);
});

t.test('--allow-cidrs is the one spelling; --allow-cidr still works, with a warning', async (t) => {
  const one = parseCli(['run', '--allow-cidrs', '10.0.0.0/8,198.18.0.0/15', '--allow-cidrs', 'fd00::/8']);
  t.same(one.flags.allow_cidrs, ['10.0.0.0/8,198.18.0.0/15', 'fd00::/8'], 'comma-separated and repeatable (split when loaded)');
  t.same(one.warnings, []);
  const old = parseCli(['run', '--allow-cidr', '10.0.0.0/8']);
  t.same(old.flags.allow_cidrs, ['10.0.0.0/8']);
  t.match(old.warnings, [/--allow-cidr is deprecated.*use --allow-cidrs/]);
  const ran = await start(['status', '--state-dir', t.testdir(), '--allow-cidr', '10.0.0.0/8']).done;
  t.match(ran.err, /node-agent: --allow-cidr is deprecated/, 'the warning is printed');
});

t.test('run --config: the spent token leaves the file; an edited setting asks for a restart', async (t) => {
  const cp = new ControlPlaneStub();
  await cp.listen();
  t.teardown(() => cp.kill());
  const dir = t.testdir();
  const file = path.join(dir, 'agent.json');
  const settings = { control_plane_url: cp.url, state_dir: path.join(dir, 'state'), concurrency: 4 };
  fs.writeFileSync(file, JSON.stringify({ ...settings, token: cp.issueToken() }), { mode: 0o600 });
  const agent = start(['run', '--config', file]);
  t.teardown(() => agent.child.kill('SIGKILL'));
  // Generous bounds: the agent first tries Chromium (browser capability), slow on a loaded machine.
  await eventually(() => !('token' in JSON.parse(fs.readFileSync(file, 'utf8'))), 'the token removed from the file', 180_000).catch((err) => {
    throw new Error(`${(err as Error).message}\nagent output:\n${agent.out()}`);
  });
  t.same(JSON.parse(fs.readFileSync(file, 'utf8')), settings);
  t.notMatch(agent.out(), /setting token/, 'its own edit is not a change to report');
  fs.writeFileSync(file, JSON.stringify({ ...settings, concurrency: 8 }));
  const line = `setting concurrency changed in ${file}; restart the agent to apply it`;
  await eventually(() => agent.out().includes(line), 'the change reported', 120_000);
  agent.child.kill('SIGTERM');
  const stopped = await agent.done;
  t.equal(stopped.out.split(line).length - 1, 1, 'reported once');
});
