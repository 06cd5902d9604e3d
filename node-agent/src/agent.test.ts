import fs from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { CLOSE_CODES, isEnrollProof, newId, type NodeMessage, type ResultEnvelope } from '@vantage/shared-protocol';
import { createAgent, type Agent, type AgentDeps } from './agent.js';
import { ControlPlaneStub } from './connection/test-support/control-plane-stub.js';
import { eventually, heldChecks, quietLog, testConfig } from './connection/test-support/helpers.js';
import { AssignmentStore } from './assignments/store.js';
import { openStateDb, type StateDb } from './state/db.js';
import { readIdentity } from './state/identity.js';

const FAST = { min_ms: 50, max_ms: 200 };
const tcpCheck = (target = '198.18.1.10:443') => ({ type: 'tcp' as const, target, params: { port: 443, timeout_ms: 5000, ip_version: 'auto' as const } });
/** The same check as a monitor assignment carries it (type, target, config). */
const tcpMonitorCheck = (target = '198.18.1.10:443') => ({ type: 'tcp' as const, target, config: { port: 443 } });
type Msg<T extends NodeMessage['type']> = Extract<NodeMessage, { type: T }>;
/** A round phase whose next round starts half a second from now (rounds are aligned to the wall clock). */
const soonPhaseMs = (interval_s: number) => (Date.now() + 500) % (interval_s * 1000);

async function stub(t: Test, opts: ConstructorParameters<typeof ControlPlaneStub>[0] = {}): Promise<ControlPlaneStub> {
  const s = new ControlPlaneStub(opts);
  await s.listen();
  t.teardown(() => s.kill());
  return s;
}

function agent(t: Test, db: StateDb, over: Omit<Partial<AgentDeps>, 'config'> & { config: Record<string, unknown> }): { agent: Agent; exit: ReturnType<Agent['start']> } {
  const a = createAgent({ db, log: quietLog, runCheck: heldChecks().runCheck, agent_version: '0.0.0-test', backoff: FAST, ...over, config: testConfig(over.config) });
  const exit = a.start();
  t.teardown(() => a.stop(0));
  return { agent: a, exit };
}

function stateDb(t: Test, dir = t.testdir()): StateDb {
  const db = openStateDb(dir);
  t.teardown(() => db.close());
  return db;
}

t.test('enrolls once with the token, then reconnects with the stored credential', async (t) => {
  const cp = await stub(t);
  const token = cp.issueToken();
  const db = stateDb(t);
  const enrolled = cp.waitFor((m) => m.type === 'enroll');
  const { agent: a, exit } = agent(t, db, { config: { control_plane_url: cp.url, token } });
  t.equal((await enrolled).type, 'enroll');
  await cp.waitFor((m) => m.type === 'outbox.stats');
  const id = readIdentity(db);
  t.ok(id, 'identity stored');
  t.notOk(cp.tokens.has(token), 'token consumed');
  t.equal(cp.credentials.get(id!.credential.reveal()), id!.node_id, 'stored credential is the one issued');

  const hello = cp.waitFor<Msg<'hello'>>((m) => m.type === 'hello');
  cp.closeAll(CLOSE_CODES.server_shutdown.code, 'bye'); // transient
  const h = await hello;
  t.equal(h.node_id, id!.node_id, 'hello names the node');
  t.same(h.outbox, { pending: 0, dropped_total: 0 });
  await a.stop(1000);
  t.same(await exit, { kind: 'stopped' });
});

t.test('the enrollment is confirmed on the enrollment connection (run and enroll mode)', async (t) => {
  const cp = await stub(t);
  const db = stateDb(t);
  const confirm = cp.waitFor<Msg<'enroll.confirm'>>((m) => m.type === 'enroll.confirm');
  const run = agent(t, db, { config: { control_plane_url: cp.url, token: cp.issueToken() } });
  const m = await confirm;
  const id = readIdentity(db)!;
  t.equal(m.node_id, id.node_id);
  t.ok(isEnrollProof(m.proof, id.credential.reveal(), id.node_id), 'proof of the stored credential, not the credential itself');
  t.notMatch(JSON.stringify(m), /nk_/);
  await cp.until(() => cp.confirmed.has(id.node_id));
  t.equal(cp.received.filter((x) => x.type === 'hello').length, 0, 'confirmed without reconnecting');
  await run.agent.stop(1000);

  const enrollOnly = agent(t, stateDb(t), { config: { control_plane_url: cp.url, token: cp.issueToken() }, mode: 'enroll' });
  const exit = await enrollOnly.exit;
  t.match(exit, { kind: 'enrolled', already: false });
  if (exit.kind === 'enrolled') t.ok(cp.confirmed.has(exit.node_id), 'enroll mode exits only once the token is spent');
});

t.test('once the token is spent it is removed from the config file it came from', async (t) => {
  const cp = await stub(t);
  const token = cp.issueToken();
  const base = t.testdir();
  const db = stateDb(t, path.join(base, 'state'));
  const etc = path.join(base, 'etc');
  fs.mkdirSync(etc);
  const file = path.join(etc, 'agent.json');
  fs.writeFileSync(file, JSON.stringify({ control_plane_url: cp.url, token, name: 'edge-1' }), { mode: 0o600 });
  const { agent: a } = agent(t, db, { config: { control_plane_url: cp.url, token, name: 'edge-1' }, config_file: file });
  await eventually(() => !('token' in JSON.parse(fs.readFileSync(file, 'utf8'))), 'token gone from the file');
  const id = readIdentity(db);
  t.ok(id && cp.confirmed.has(id.node_id), 'removed only once the enrollment was confirmed');
  t.same(JSON.parse(fs.readFileSync(file, 'utf8')), { control_plane_url: cp.url, name: 'edge-1' }, 'the other settings are kept');
  t.equal(fs.statSync(file).mode & 0o777, 0o600);
  await a.stop(1000);

  // Already enrolled with a token still in the file (put back by hand, or a crash before removal): removed at start.
  const again = cp.issueToken();
  fs.writeFileSync(file, JSON.stringify({ control_plane_url: cp.url, token: again }));
  const db2 = stateDb(t, path.join(base, 'state2'));
  const first = agent(t, db2, { config: { control_plane_url: cp.url, token: cp.issueToken() } });
  await cp.until(() => cp.confirmed.size === 2);
  await first.agent.stop(1000);
  const second = agent(t, db2, { config: { control_plane_url: cp.url, token: again }, config_file: file });
  await cp.waitFor((m) => m.type === 'hello');
  t.notOk('token' in JSON.parse(fs.readFileSync(file, 'utf8')), 'an enrolled node drops the unused token at start');
  t.ok(cp.tokens.has(again), 'and never used it');
  await second.agent.stop(1000);
});

t.test('fatal refusals stop the agent with the reason, without retrying', async (t) => {
  const cp = await stub(t);
  const used = cp.issueToken();
  const first = agent(t, stateDb(t), { config: { control_plane_url: cp.url, token: used }, mode: 'enroll' });
  t.match(await first.exit, { kind: 'enrolled', already: false });

  const second = agent(t, stateDb(t), { config: { control_plane_url: cp.url, token: used } });
  const exit = await second.exit;
  t.equal(exit.kind, 'fatal');
  if (exit.kind === 'fatal') {
    t.equal(exit.error.code, 'http_401');
    t.match(exit.error.message, /NODE_ENROLLMENT_TOKEN_INVALID: enrollment token unknown, used or expired/);
  }

  const db = stateDb(t);
  const third = agent(t, db, { config: { control_plane_url: cp.url, token: cp.issueToken() } });
  await cp.waitFor((m) => m.type === 'outbox.stats');
  cp.closeAll(CLOSE_CODES.credential_invalid.code, 'node credential revoked');
  const revoked = await third.exit;
  t.match(revoked, { kind: 'fatal', error: { code: 'credential_invalid', message: /node credential revoked \(code 4001\)/ } });

  const none = agent(t, stateDb(t), { config: { control_plane_url: cp.url } });
  t.match(await none.exit, { kind: 'fatal', error: { code: 'not_enrolled' } });
});

t.test('tasks: ack, result with task id, queue full, cancel, unsupported type, bad frames', async (t) => {
  const cp = await stub(t);
  const checks = heldChecks();
  const { agent: a } = agent(t, stateDb(t), { config: { control_plane_url: cp.url, token: cp.issueToken(), concurrency: 1, queue_max: 1 }, runCheck: checks.runCheck });
  await cp.waitFor((m) => m.type === 'outbox.stats');

  const ids = [newId('probe_task'), newId('probe_task'), newId('probe_task')];
  const acks = new Map<string, Msg<'task.ack'>>();
  cp.on('message', (_s, m: NodeMessage) => { if (m.type === 'task.ack') acks.set(m.task_id, m); });
  const allAcked = cp.until(() => acks.size === 3);
  cp.broadcast('{"type":"garbage"'); // invalid frame: dropped, link stays
  cp.broadcast({ type: 'task.run', task_id: ids[0]!, timeout_ms: 10_000, check: tcpCheck('hold-a') });
  cp.broadcast({ type: 'task.run', task_id: ids[1]!, timeout_ms: 10_000, check: tcpCheck('hold-b') });
  cp.broadcast({ type: 'task.run', task_id: ids[2]!, timeout_ms: 10_000, check: tcpCheck('hold-c') });
  await allAcked;
  t.equal(acks.get(ids[0]!)!.accepted, true);
  t.equal(acks.get(ids[1]!)!.accepted, true, 'second waits in the queue');
  t.same(acks.get(ids[2]!), { type: 'task.ack', task_id: ids[2], accepted: false, reason: 'queue full (1 tasks)' });

  const resultOf = (task_id: string) => [...cp.results.values()].find((r) => r.task_id === task_id);
  cp.broadcast({ type: 'task.cancel', task_id: ids[0]! });
  await cp.until(() => resultOf(ids[0]!) !== undefined);
  t.match(resultOf(ids[0]!), { success: false, error_class: 'cancelled', monitor_id: null });
  await eventually(() => checks.held.has('hold-b'), 'second task started');
  checks.release('hold-b');
  await cp.until(() => resultOf(ids[1]!) !== undefined);
  const r = resultOf(ids[1]!) as ResultEnvelope;
  t.match(r, { success: true, task_id: ids[1], type: 'tcp' });
  t.match(r.result_id, /^r_/);

  const odd = newId('probe_task');
  const rejected = cp.waitFor<Msg<'task.ack'>>((m) => m.type === 'task.ack' && m.task_id === odd);
  cp.broadcast(JSON.stringify({ type: 'task.run', task_id: odd, timeout_ms: 10_000, check: { type: 'browser', target: 'x', params: {} } }));
  t.match(await rejected, { accepted: false, reason: /unsupported type or invalid check/ });
  await eventually(() => a.outbox.stats().pending === 0, 'outbox drained after acks');
});

t.test('assignments are stored, scheduled, acked; a delta from another version is ignored', async (t) => {
  const cp = await stub(t);
  const m1 = newId('monitor');
  // Its round phase puts the next round half a second from now (rounds are aligned to the clock).
  cp.assignments = { version: 3, assignments: [{ monitor_id: m1, interval_s: 60, phase_ms: soonPhaseMs(60), check: tcpMonitorCheck() }] };
  const { agent: a } = agent(t, stateDb(t), { config: { control_plane_url: cp.url, token: cp.issueToken() } });
  const ack = await cp.waitFor<Msg<'assignments.ack'>>((m) => m.type === 'assignments.ack');
  t.equal(ack.version, 3);
  await cp.until(() => [...cp.results.values()].some((r) => r.monitor_id === m1));
  t.same(a.scheduler.monitor_ids, [m1], 'scheduled, and ran at its round');

  const stale = cp.waitFor<Msg<'assignments.ack'>>((m) => m.type === 'assignments.ack');
  cp.broadcast({ type: 'assignments.delta', from_version: 1, version: 2, upsert: [], remove: [m1] });
  t.equal((await stale).version, 3, 'held version acked so the server sends a full set');
  t.same(a.scheduler.monitor_ids, [m1]);

  const applied = cp.waitFor<Msg<'assignments.ack'>>((m) => m.type === 'assignments.ack');
  cp.broadcast({ type: 'assignments.delta', from_version: 3, version: 4, upsert: [], remove: [m1] });
  t.equal((await applied).version, 4);
  t.same(a.scheduler.monitor_ids, []);
  t.equal(a.assignments.version, 4);
});

t.test('a silent link is dropped after 3 heartbeat intervals and reconnected', async (t) => {
  const cp = await stub(t, { heartbeats: false, heartbeat_interval_ms: 1000 });
  agent(t, stateDb(t), { config: { control_plane_url: cp.url, token: cp.issueToken() } });
  await cp.waitFor((m) => m.type === 'enroll');
  const beat = await cp.waitFor<Msg<'heartbeat'>>((m) => m.type === 'heartbeat');
  t.type(beat.sent_at, 'number', 'the agent sends heartbeats');
  await cp.waitFor((m) => m.type === 'hello');
  t.pass('reconnected after the server went silent');
});

t.test('nothing is lost when the control plane dies and the agent restarts while it is down', async (t) => {
  const cp = await stub(t, { auto_ack: false });
  const dir = t.testdir();
  const m1 = newId('monitor');
  cp.assignments = { version: 1, assignments: [{ monitor_id: m1, interval_s: 3600, phase_ms: soonPhaseMs(3600), check: tcpMonitorCheck() }] };
  const db = stateDb(t, dir);
  const first = agent(t, db, { config: { control_plane_url: cp.url, token: cp.issueToken() } });
  await cp.waitFor((m) => m.type === 'assignments.ack');
  const tasks = Array.from({ length: 20 }, () => newId('probe_task'));
  for (const task_id of tasks) cp.broadcast({ type: 'task.run', task_id, timeout_ms: 10_000, check: tcpCheck() });
  await cp.until(() => cp.results.size === 21);
  t.equal(first.agent.outbox.stats().pending, 21, 'sent but unacked results stay in the outbox');

  const url = cp.url;
  const port = Number(new URL(url).port);
  const credentials = new Map(cp.credentials);
  await cp.kill(); // control plane gone without a close frame
  await first.agent.stop(1000);
  t.same(await first.exit, { kind: 'stopped' });

  // Agent restarts while the control plane is down: the held assignment runs and buffers (its
  // next round brought close, as if an hour had passed).
  const held = new AssignmentStore(db);
  held.replaceAll(held.version, held.list().map((a) => ({ ...a, phase_ms: soonPhaseMs(a.interval_s) })));
  const second = agent(t, db, { config: { control_plane_url: url } });
  await eventually(() => second.agent.outbox.stats().pending === 22, 'assignment ran while offline');

  const back = new ControlPlaneStub({ port });
  for (const [k, v] of credentials) back.credentials.set(k, v);
  await back.listen();
  t.teardown(() => back.kill());
  await eventually(() => second.agent.outbox.stats().pending === 0, 'outbox drained after reconnect', 60_000);
  const ids = [...cp.results.keys()];
  t.ok(ids.every((id) => back.results.has(id)), 'every result sent before the crash was replayed');
  t.equal(back.results.size, 22);
  t.same(tasks.filter((task_id) => ![...back.results.values()].some((r) => r.task_id === task_id)), [], 'every task has its result');
  t.equal([...back.results.values()].filter((r) => r.monitor_id === m1).length, 2, 'both monitor runs delivered');
});
