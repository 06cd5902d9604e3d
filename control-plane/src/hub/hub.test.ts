import { performance } from 'node:perf_hooks';
import t from 'tap';
import { CLOSE_CODES, LIMITS, PROTOCOL_VERSION, enrollProof, newId, taskRunMessageSchema } from '@vantage/shared-protocol';
import { secretHash } from '../nodes/secrets.js';
import { testDatabase } from '../test-support/db.js';
import { makeToken, enrollNode, helloNode, recordingSink, startHub, waitFor } from './test-harness.js';
import { TestNode } from '../test-support/test-node.js';

const { url, sql } = await testDatabase(t);
const sink = recordingSink();
const { hub, base } = await startHub(t, sql, url, { instance_id: 'hub-test-a' }, sink);

async function refused(bearer: string | null): Promise<{ status: number; body: any }> {
  try {
    const node = await TestNode.connect(base, bearer);
    node.close();
    throw new Error('upgrade unexpectedly accepted');
  } catch (err) {
    const e = err as { status?: number; body?: string };
    if (e.status === undefined) throw err;
    return { status: e.status, body: JSON.parse(e.body ?? '{}') };
  }
}

const nodeRow = async (id: string) => (await sql`SELECT * FROM nodes WHERE id = ${id}`)[0]!;

t.test('enrollment: token consumed once, node created from declared fields, credential hashed', async (t) => {
  const token = await makeToken(sql, { label: 'bj-1', country_code: 'CN', declared_province: 'CN-BJ', city_id: 1, operator: 'chinatelecom' });
  const { node, node_id, credential } = await enrollNode(base, token);
  t.teardown(() => node.close());
  t.match(credential, /^nk_/);
  const row = await nodeRow(node_id);
  t.match(row, { name: 'bj-1', status: 'online', instance_id: 'hub-test-a', country: 'CN', region: 'CN-BJ', city: 'Beijing', provider: 'chinatelecom', ip_address: '127.0.0.1' });
  t.ok(row.credential_confirmed_at, 'confirmed on the enrollment connection');
  t.not(row.credential_hash, credential, 'only a hash is stored');
  const [tok] = await sql`SELECT status, consumed_node_id FROM enrollment_tokens WHERE consumed_node_id = ${node_id}`;
  t.match(tok, { status: 'used' });
  t.same(hub.localNodeIds(), [node_id]);
  const reuse = await refused(token);
  t.equal(reuse.status, 401, 'a spent token is refused before the upgrade');
  t.equal(reuse.body.error.code, 'NODE_ENROLLMENT_TOKEN_INVALID');
});

t.test('a used token cannot take over a live node (the token leaked from ps or shell history)', async (t) => {
  const token = await makeToken(sql, { label: 'victim' });
  // The real agent enrolls and stays on its enrollment connection (run mode), confirming there.
  const real = await enrollNode(base, token);
  t.teardown(() => real.node.close());
  // An attacker who copied the token right away.
  for (let i = 0; i < 3; i++) {
    const attack = await refused(token);
    t.equal(attack.status, 401, 'the attacker\'s upgrade is refused');
    t.equal(attack.body.error.code, 'NODE_ENROLLMENT_TOKEN_INVALID');
  }
  t.equal(real.node.ws.readyState, real.node.ws.OPEN, 'the real node was not replaced (no 4006)');
  t.match(await nodeRow(real.node_id), { status: 'online', credential_hash: secretHash(real.credential) }, 'and keeps its credential');
  const task_id = newId('probe_task');
  t.equal(await hub.sendTask(real.node_id, run(task_id)), 'sent');
  t.equal((await real.node.next('task.run')).task_id, task_id, 'the node\'s tasks still go to the real agent');
  t.equal((await sql`SELECT count(*)::int AS n FROM nodes WHERE name = 'victim'`)[0]!.n, 1);
});

t.test('an unconfirmed enrollment that is still connected is never re-issued: 409, then spent once confirmed', async (t) => {
  const token = await makeToken(sql, { label: 'slow-confirm' });
  const real = await enrollNode(base, token, 'probe-1', { confirm: false });
  t.teardown(() => real.node.close());
  const early = await refused(token);
  t.equal(early.status, 409, 'a second party is refused while the node is connected');
  t.equal(early.body.error.code, 'NODE_STATE_CONFLICT');
  t.equal(real.node.ws.readyState, real.node.ws.OPEN, 'the enrolling node keeps its connection');
  real.node.send({ type: 'enroll.confirm', node_id: real.node_id, proof: enrollProof(real.credential, real.node_id) });
  t.same(await real.node.next('enroll.confirmed'), { type: 'enroll.confirmed', node_id: real.node_id });
  real.node.send({ type: 'enroll.confirm', node_id: real.node_id, proof: enrollProof(real.credential, real.node_id) });
  t.match(await real.node.next('error'), { code: 'CONFLICT' }, 'a second confirm is refused, the link stays up');
  real.node.close();
  await real.node.closed;
  await waitFor(async () => (await nodeRow(real.node_id)).status === 'offline');
  t.equal((await refused(token)).body.error.code, 'NODE_ENROLLMENT_TOKEN_INVALID', 'confirmed: spent even while the node is offline');
});

t.test('enroll.confirm must prove the credential of this connection\'s welcome', async (t) => {
  const token = await makeToken(sql, { label: 'bad-proof' });
  const first = await enrollNode(base, token, 'probe-1', { confirm: false });
  first.node.send({ type: 'enroll.confirm', node_id: first.node_id, proof: enrollProof('nk_' + 'x'.repeat(43), first.node_id) });
  t.match(await first.node.next('error'), { code: 'VALIDATION_FAILED' });
  t.equal((await first.node.closed).code, CLOSE_CODES.protocol_error.code);
  t.notOk((await nodeRow(first.node_id)).credential_confirmed_at, 'not confirmed');
  await waitFor(async () => (await nodeRow(first.node_id)).status === 'offline');
  // Not spent: the agent retries and confirms properly.
  const again = await enrollNode(base, token);
  t.teardown(() => again.node.close());
  t.equal(again.node_id, first.node_id);
  const x = await enrollNode(base, await makeToken(sql));
  x.node.close();
  await x.node.closed;
  const other = await helloNode(base, x.credential, x.node_id);
  t.teardown(() => other.close());
  other.send({ type: 'enroll.confirm', node_id: x.node_id, proof: enrollProof(x.credential, x.node_id) });
  t.match(await other.next('error'), { code: 'CONFLICT' }, 'confirm on a hello connection is refused; the link stays up');
});

t.test('enrollment whose welcome was lost: the same token re-issues the credential until it is confirmed', async (t) => {
  const token = await makeToken(sql, { label: 'lost-welcome' });
  const first = await enrollNode(base, token, 'probe-1', { confirm: false });
  first.node.close(); // as if the welcome never reached the agent: it does not know `first.credential`
  await first.node.closed;
  await waitFor(async () => (await nodeRow(first.node_id)).status === 'offline');
  const again = await enrollNode(base, token, 'probe-1', { confirm: false });
  t.equal(again.node_id, first.node_id, 'the same node, not a second one');
  t.not(again.credential, first.credential, 'with a new credential');
  t.equal((await sql`SELECT count(*)::int AS n FROM nodes WHERE name = 'lost-welcome'`)[0]!.n, 1);
  t.equal((await refused(first.credential)).status, 401, 'the lost credential no longer works');
  again.node.close(); // the confirm was lost too: the agent confirms with hello on its next connection
  await again.node.closed;
  await waitFor(async () => (await nodeRow(again.node_id)).status === 'offline');
  const ok = await helloNode(base, again.credential, again.node_id);
  t.teardown(() => ok.close());
  t.match(await nodeRow(again.node_id), { status: 'online' });
  t.ok((await nodeRow(again.node_id)).credential_confirmed_at, 'hello confirms as well');
  t.equal((await refused(token)).body.error.code, 'NODE_ENROLLMENT_TOKEN_INVALID', 'after the hello the token is spent');
});

t.test('an enrollment connection that never confirms is closed (4007); the node confirms with hello', async (t) => {
  const { base: quick } = await startHub(t, sql, url, { instance_id: 'hub-test-confirm', hello_timeout_ms: 800 });
  const token = await makeToken(sql, { label: 'no-confirm' });
  const { node, node_id, credential } = await enrollNode(quick, token, 'probe-1', { confirm: false });
  t.equal((await node.closed).code, CLOSE_CODES.hello_timeout.code);
  await waitFor(async () => (await nodeRow(node_id)).status === 'offline');
  const back = await helloNode(quick, credential, node_id);
  t.teardown(() => back.close());
  t.ok((await nodeRow(node_id)).credential_confirmed_at);
  t.equal((await refused(token)).status, 401);
});

t.test('expired token, missing and bad bearers are refused with 401 before the upgrade', async (t) => {
  const expired = await makeToken(sql);
  await sql`UPDATE enrollment_tokens SET expires_at = now() - interval '1 second' WHERE status = 'active'`;
  t.equal((await refused(expired)).body.error.code, 'NODE_ENROLLMENT_TOKEN_INVALID');
  t.equal((await refused(null)).body.error.code, 'AUTH_REQUIRED');
  t.equal((await refused('nk_' + 'a'.repeat(32))).body.error.code, 'AUTH_INVALID_TOKEN');
  t.equal((await refused('garbage')).status, 401);
});

t.test('reconnect with the credential: hello, welcome without credential', async (t) => {
  const first = await enrollNode(base, await makeToken(sql));
  first.node.close();
  await first.node.closed;
  await t.resolves(waitFor(async () => (await nodeRow(first.node_id)).status === 'offline'), 'offline after close');
  const again = await TestNode.connect(base, first.credential);
  t.teardown(() => again.close());
  again.send({ type: 'hello', protocol_version: PROTOCOL_VERSION, agent_version: '0.2.0', node_id: first.node_id, capabilities: ['ping', 'tcp'] });
  const welcome = await again.next('welcome');
  t.equal(welcome.credential, null);
  t.equal(welcome.node_id, first.node_id);
  t.match(await nodeRow(first.node_id), { status: 'online', agent_version: '0.2.0', capabilities: ['ping', 'tcp'] });
});

t.test('hello naming another node closes credential_invalid; unsupported version closes 4005', async (t) => {
  const { node, node_id, credential } = await enrollNode(base, await makeToken(sql));
  node.close();
  const wrong = await TestNode.connect(base, credential);
  wrong.send({ type: 'hello', protocol_version: PROTOCOL_VERSION, agent_version: '0.1.0', node_id: newId('node') });
  t.equal((await wrong.closed).code, CLOSE_CODES.credential_invalid.code);
  const future = await TestNode.connect(base, credential);
  future.send({ type: 'hello', protocol_version: 99, agent_version: '9.0.0', node_id, something_new: { x: 1 } });
  t.equal((await future.closed).code, CLOSE_CODES.unsupported_version.code);
  const enrollOld = await TestNode.connect(base, await makeToken(sql));
  enrollOld.send({ type: 'enroll', protocol_version: 0, agent_version: '0.0.1' });
  t.equal((await enrollOld.closed).code, CLOSE_CODES.unsupported_version.code);
});

t.test('malformed, unknown and oversized frames are answered with error; the link stays up', async (t) => {
  const { node, node_id } = await enrollNode(base, await makeToken(sql));
  t.teardown(() => node.close());
  node.send('not json');
  t.match(await node.next('error'), { code: 'VALIDATION_FAILED', message: /JSON/ });
  node.send({ type: 'launch_missiles' });
  t.match(await node.next('error'), { code: 'VALIDATION_FAILED', message: /type/ });
  node.send(Buffer.alloc(LIMITS.ws_message_max_bytes + 10, 0x20));
  t.match(await node.next('error'), { code: 'PAYLOAD_TOO_LARGE' });
  node.send({ type: 'hello', protocol_version: PROTOCOL_VERSION, agent_version: '1', node_id });
  t.match(await node.next('error'), { code: 'CONFLICT' });
  // Still connected and still served: a task reaches it.
  const task_id = newId('probe_task');
  t.equal(await hub.sendTask(node_id, run(task_id)), 'sent');
  t.equal((await node.next('task.run')).task_id, task_id);
});

t.test('results: valid ones go to the sink and are acked after storing; forged ones are refused and settled; invalid ones are not acked', async (t) => {
  const a = await enrollNode(base, await makeToken(sql), 'a');
  const b = await enrollNode(base, await makeToken(sql), 'b');
  t.teardown(() => { a.node.close(); b.node.close(); });
  const mine = newId('probe_task');
  const theirs = newId('probe_task');
  sink.assign(mine, a.node_id);
  sink.assign(theirs, b.node_id);
  const good = result(mine);
  const forged = result(theirs);
  a.node.send({ type: 'result.batch', batch_id: 7, results: [good, { ...good, result_id: 'r_bad' }, forged] });
  const invalid = await a.node.next('error');
  t.match(invalid, { code: 'VALIDATION_FAILED', ref: '7', message: /results\[1\]/ });
  const rejected = await a.node.next('error');
  t.match(rejected, { code: 'FORBIDDEN', ref: '7', message: new RegExp(forged.result_id) });
  const ack = await a.node.next('result.ack');
  t.same(ack, { type: 'result.ack', batch_id: 7, result_ids: [good.result_id, forged.result_id] },
    'the forged result is acked too: it can never be accepted, so the node must drop it, not resend it');
  t.ok(sink.stored.has(good.result_id));
  t.notOk(sink.stored.has(forged.result_id), 'a result for another node\'s task is not stored');
  // Resending the same batch is acked again (idempotent storage on the sink side).
  a.node.send({ type: 'result.batch', batch_id: 8, results: [good] });
  t.same((await a.node.next('result.ack')).result_ids, [good.result_id]);
  a.node.send({ type: 'task.ack', task_id: mine, accepted: false, reason: 'queue full' });
  await waitFor(async () => sink.acks.some((x) => x.task_id === mine));
  t.match(sink.acks.find((x) => x.task_id === mine), { accepted: false, reason: 'queue full' });
});

t.test('results for monitors not assigned to the node are refused, settled and counted; nothing is stored', async (t) => {
  const { node, node_id } = await enrollNode(base, await makeToken(sql));
  t.teardown(() => node.close());
  const forged = Array.from({ length: 25 }, () => monitorResult(newId('monitor')));
  node.send({ type: 'result.batch', batch_id: 3, results: forged });
  t.match(await node.next('error'), { code: 'FORBIDDEN', ref: '3', message: /monitor not assigned to this node/ });
  t.same([...(await node.next('result.ack')).result_ids].sort(), forged.map((r) => r.result_id).sort(), 'acked: the node drops them instead of resending');
  t.notOk(forged.some((r) => sink.stored.has(r.result_id)), 'none stored');
  await t.resolves(waitFor(async () => Number((await nodeRow(node_id)).results_rejected_total) === 25), 'counted on the node');
  const monitor_id = newId('monitor');
  sink.assign(monitor_id, node_id);
  const own = monitorResult(monitor_id);
  node.send({ type: 'result.batch', batch_id: 4, results: [own] });
  t.same((await node.next('result.ack')).result_ids, [own.result_id], 'a result of an assigned monitor is stored');
  t.ok(sink.stored.has(own.result_id));
});

t.test('a second connection replaces the first (4006) and the node stays online', async (t) => {
  const { node, node_id, credential } = await enrollNode(base, await makeToken(sql));
  const second = await helloNode(base, credential, node_id);
  t.teardown(() => second.close());
  t.equal((await node.closed).code, CLOSE_CODES.replaced.code);
  t.equal((await nodeRow(node_id)).status, 'online');
  const task_id = newId('probe_task');
  await hub.sendTask(node_id, run(task_id));
  t.equal((await second.next('task.run')).task_id, task_id, 'tasks go to the new connection');
});

t.test('heartbeats: the hub sends them, and a silent node is closed and marked offline', async (t) => {
  const { node, node_id } = await enrollNode(base, await makeToken(sql));
  node.autoHeartbeat = false;
  t.ok(await node.next('heartbeat'), 'hub heartbeat arrives');
  // The node never answers: quiet past two intervals and a half (2 s each here) the hub closes it.
  t.equal((await node.closed).code, CLOSE_CODES.heartbeat_timeout.code);
  await t.resolves(waitFor(async () => (await nodeRow(node_id)).status === 'offline'));
});

t.test('the hub held past the dead-link time: a node whose frame came meanwhile stays connected and online', async (t) => {
  const { node, node_id } = await enrollNode(base, await makeToken(sql));
  t.teardown(() => node.close());
  // The node's heartbeat is on the wire when the hub's loop is held (inside a timer callback, as
  // a long task would be) for longer than a quiet link lives (4.5 s here): the hub's liveness
  // timer comes due meanwhile and runs before the socket is read.
  await new Promise<void>((resolve) => setTimeout(() => {
    node.send({ type: 'heartbeat', sent_at: Date.now() });
    const end = performance.now() + 5_000;
    while (performance.now() < end) { /* the hub's loop is held */ }
    resolve();
  }, 0));
  await new Promise((r) => setTimeout(r, 1_000));
  t.equal(node.ws.readyState, node.ws.OPEN, 'the link was not closed for the stall');
  t.equal((await nodeRow(node_id)).status, 'online');
});

t.test('disconnect (owner disable) closes the socket with 4003 and the node cannot come back', async (t) => {
  const { node, node_id, credential } = await enrollNode(base, await makeToken(sql));
  await sql`UPDATE nodes SET status = 'disabled', instance_id = NULL WHERE id = ${node_id}`;
  await hub.disconnect(node_id, 'node_disabled');
  t.equal((await node.closed).code, CLOSE_CODES.node_disabled.code);
  t.equal(await hub.sendTask(node_id, run(newId('probe_task'))), 'offline');
  t.equal((await refused(credential)).body.error.code, 'NODE_ALREADY_BANNED');
  t.equal((await nodeRow(node_id)).status, 'disabled', 'close did not overwrite disabled with offline');
});

t.test('no first frame: closed with hello_timeout', async (t) => {
  const { base: quick } = await startHub(t, sql, url, { instance_id: 'hub-test-quick', hello_timeout_ms: 500 });
  const node = await TestNode.connect(quick, await makeToken(sql));
  t.equal((await node.closed).code, CLOSE_CODES.hello_timeout.code);
});

t.test('a task sent while the hello is written waits for welcome (an agent drops frames before it)', async (t) => {
  const { node: first, node_id, credential } = await enrollNode(base, await makeToken(sql));
  first.close();
  await waitFor(async () => (await nodeRow(node_id)).status === 'offline');
  // The hello's online mark waits on this lock: the link is registered, welcome not sent yet.
  let release!: () => void;
  const held = new Promise<void>((resolve) => { release = resolve; });
  let locked!: () => void;
  const lock_taken = new Promise<void>((resolve) => { locked = resolve; });
  const tx = sql.begin(async (tx) => {
    await tx`SELECT id FROM nodes WHERE id = ${node_id} FOR UPDATE`;
    locked();
    await held;
  });
  await lock_taken;
  const node = await TestNode.connect(base, credential);
  t.teardown(() => node.close());
  node.send({ type: 'hello', protocol_version: PROTOCOL_VERSION, agent_version: '0.1.0', node_id });
  await waitFor(async () => hub.localNodeIds().includes(node_id));
  const task_id = newId('probe_task');
  t.equal(await hub.sendTask(node_id, run(task_id)), 'sent', 'routed to the registered link');
  release();
  await tx;
  t.equal((await node.next()).type, 'welcome', 'welcome is the first frame the node gets');
  t.equal((await node.next('task.run')).task_id, task_id, 'then the task held back for it');
});

function run(task_id: string) {
  return taskRunMessageSchema.parse({ type: 'task.run', task_id, timeout_ms: 5000, check: { type: 'tcp', target: '198.18.0.10:443', params: {} } });
}

function result(task_id: string) {
  return {
    result_id: newId('result'), task_id, monitor_id: null, type: 'tcp', started_at: new Date().toISOString(),
    finished_at: new Date().toISOString(), success: true, error: null, error_class: null,
    output: { resolved_address: '198.18.0.10', port: 443, connect_ms: 0.4, state: 'open' },
  };
}

/** A tcp monitor check result in the monitor-result shape (scheduled_at of its round, assertions, check output). */
function monitorResult(monitor_id: string) {
  const base = result(newId('probe_task'));
  return {
    ...base, task_id: null, monitor_id, scheduled_at: base.started_at, assertions: [],
    output: { ...base.output, expected: 'open', banner: null, banner_matched: null },
  };
}

t.test('behind a trusted proxy the node is located from X-Forwarded-For, otherwise from the socket', async (t) => {
  const { base: proxied } = await startHub(t, sql, url, { instance_id: 'hub-test-proxy', trust_proxy: true });
  const forwarded = { 'x-forwarded-for': '203.0.113.9, 81.2.69.142' }; // rightmost: what the proxy saw
  const viaProxy = await TestNode.connect(proxied, await makeToken(sql, { label: 'behind-proxy' }), forwarded);
  t.teardown(() => viaProxy.close());
  viaProxy.send({ type: 'enroll', protocol_version: PROTOCOL_VERSION, agent_version: '0.1.0' });
  const w1 = await viaProxy.next('welcome');
  t.match(await nodeRow(w1.node_id), { ip_address: '81.2.69.142', country: 'GB', city: 'Bracknell', asn: 20712 });

  const direct = await TestNode.connect(base, await makeToken(sql, { label: 'no-proxy' }), forwarded);
  t.teardown(() => direct.close());
  direct.send({ type: 'enroll', protocol_version: PROTOCOL_VERSION, agent_version: '0.1.0' });
  const w2 = await direct.next('welcome');
  t.match(await nodeRow(w2.node_id), { ip_address: '127.0.0.1', country: null }, 'X-Forwarded-For is ignored without trust_proxy');
});

t.test('a node heartbeat with its ping, when the hub\'s heartbeat is due: the heartbeat goes out with the pong, ahead of it', async (t) => {
  const { node } = await enrollNode(base, await makeToken(sql));
  t.teardown(() => node.close());
  node.autoHeartbeat = false;
  const seen: string[] = [];
  let beat_at = 0;
  node.onFrame = (m) => {
    if (m.type !== 'heartbeat') return false;
    seen.push('heartbeat');
    beat_at = Date.now();
    return true;
  };
  node.ws.on('pong', () => seen.push('pong'));
  // The hub's first heartbeat comes at a random point of its first interval (2 s here), half an
  // interval late, or with a frame of the node's once due within half an interval. The node sends
  // its heartbeat meanwhile: a link quiet for two intervals is dead and gets none, which on a busy
  // machine could come first.
  await waitFor(async () => {
    if (beat_at === 0) node.send({ type: 'heartbeat', sent_at: Date.now() });
    return beat_at > 0;
  }, 20_000);
  // Past half an interval since it: the next one is due within half an interval.
  await new Promise((r) => setTimeout(r, 1200));
  seen.length = 0;
  // What node-agent sends every interval: its heartbeat, then a ping (client.ts).
  node.send({ type: 'heartbeat', sent_at: Date.now() });
  node.ws.ping();
  await waitFor(async () => seen.includes('pong'), 20_000);
  t.same(seen.slice(0, 2), ['heartbeat', 'pong'], 'the heartbeat is sent in answer, before the pong (one write)');
});
