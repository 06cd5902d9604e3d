import t from 'tap';
import { Webhook } from 'standardwebhooks';
import { newId } from '@vantage/shared-protocol';
import { eventually, startReceiver, type Received } from '../delivery/test-support.js';
import { enrollNode, helloNode, makeToken } from '../hub/test-harness.js';
import { insertTasks } from '../probes/tasks.db.js';
import { addNode, nodeResult } from '../probes/test-support.js';
import { call, registerUser, testApp } from '../test-support/app.js';

const CONFIG = { delivery_allow_cidrs: ['127.0.0.0/8'], delivery_poll_interval_ms: 50 };

type Event = { id: string; type: string; timestamp: string; data: any };

function verified(secret: string, r: Received): Event {
  return new Webhook(secret).verify(r.body, {
    'webhook-id': String(r.headers['webhook-id']), 'webhook-timestamp': String(r.headers['webhook-timestamp']), 'webhook-signature': String(r.headers['webhook-signature']),
  }) as Event;
}

t.test('node.online and node.offline come from the hub: enroll, disconnect, hello', async (t) => {
  const { app, sql, url } = await testApp(t, { config: CONFIG, delivery: true });
  const u = await registerUser(app);
  const rx = await startReceiver(t);
  const { body } = await call(app, 'POST', '/v1/webhook-endpoints', { token: u.access_token, body: { url: rx.url, events: ['node.online', 'node.offline'] } });
  const secret = body.data.secret as string;

  const { node, node_id, credential } = await enrollNode(url, await makeToken(sql, { user_id: u.user_id, country_code: 'DE' }), 'fra-1');
  const online = verified(secret, (await rx.waitFor(1))[0]!);
  t.match(online, { type: 'node.online', data: { status: 'online', node: { id: node_id, country: 'DE' } } });
  t.equal(online.id, (await rx.waitFor(1))[0]!.headers['webhook-id']);

  node.close();
  const offline = verified(secret, (await rx.waitFor(2))[1]!);
  t.match(offline, { type: 'node.offline', data: { status: 'offline', node: { id: node_id } } });
  t.ok(Date.parse(offline.data.changed_at) >= Date.parse(online.data.changed_at));

  const again = await helloNode(url, credential, node_id);
  t.teardown(() => again.close());
  t.match(verified(secret, (await rx.waitFor(3))[2]!), { type: 'node.online', data: { node: { id: node_id } } });
  await new Promise((r) => setTimeout(r, 300));
  t.equal(rx.received.length, 3, 'heartbeats and touches send nothing');
});

t.test("probe.completed reaches the requester's endpoints once every node has a result; anonymous probes send nothing", async (t) => {
  const { app, sql, url } = await testApp(t, { config: CONFIG, delivery: true });
  const u = await registerUser(app);
  const rx = await startReceiver(t);
  const { body } = await call(app, 'POST', '/v1/webhook-endpoints', { token: u.access_token, body: { url: rx.url, events: ['probe.completed'] } });
  const secret = body.data.secret as string;
  const one = await enrollNode(url, await makeToken(sql, { user_id: u.user_id, country_code: 'DE' }), 'probe-de');
  const two = await enrollNode(url, await makeToken(sql, { user_id: u.user_id, country_code: 'US' }), 'probe-us');
  t.teardown(() => { one.node.close(); two.node.close(); });

  const run = async (token?: string) => {
    const r = await call(app, 'POST', '/v1/probe/tcp', { token, body: { target: '1.1.1.1:443', node_ids: [one.node_id, two.node_id] } });
    if (r.status !== 202) throw new Error(`probe: ${r.status} ${JSON.stringify(r.body)}`);
    const a = await one.node.next('task.run');
    const b = await two.node.next('task.run');
    one.node.send({ type: 'result.batch', batch_id: 1, results: [nodeResult(a.task_id, 'tcp', 4)] });
    await one.node.next('result.ack');
    return { ...r.body.data, b: b.task_id } as { task_id: string; task_ids: string[]; b: string };
  };

  const anon = await run();
  two.node.send({ type: 'result.batch', batch_id: 2, results: [nodeResult(anon.b, 'tcp', 5)] });
  await two.node.next('result.ack');

  const mine = await run(u.access_token);
  await new Promise((r) => setTimeout(r, 300));
  t.equal(rx.received.length, 0, 'nothing while a node has not answered');
  two.node.send({ type: 'result.batch', batch_id: 3, results: [nodeResult(mine.b, 'tcp', 0, { success: false, error: 'connection refused', error_class: 'refused' })] });
  await two.node.next('result.ack');
  const event = verified(secret, (await rx.waitFor(1))[0]!);
  t.match(event, { type: 'probe.completed', data: { task_id: mine.task_id, probe_type: 'tcp', target: '1.1.1.1:443', status: 'completed', success_count: 1, fail_count: 1 } });
  t.same([...event.data.task_ids].sort(), [...mine.task_ids].sort());
  await new Promise((r) => setTimeout(r, 300));
  t.equal(rx.received.length, 1, 'one event: the anonymous probe sent none');
});

t.test('two transactions storing the last two results at once record probe.completed exactly once', async (t) => {
  const { sql } = await testApp(t);
  const u = newId('user');
  await sql`INSERT INTO users (id, email, password_hash) VALUES (${u}, ${`${u}@example.test`}, 'x')`;
  const node_id = await addNode(sql, { owner_user_id: u });
  const check = { type: 'tcp', target: '1.1.1.1:443', params: { timeout_ms: 5000, ip_version: 'auto' } };
  for (let round = 0; round < 5; round++) {
    const group = newId('probe_task');
    const second = newId('probe_task');
    const task = (id: string, ordinal: number) => ({ id, group_id: group, ordinal, node_id, probe_type: 'tcp', target: check.target, check, timeout_ms: 5000, grace_ms: 5000, requester_user_id: u, allow_private: false });
    await insertTasks(sql, [task(group, 0), task(second, 1)] as never);
    const result = (task_id: string) => ({ result_id: newId('result'), task_id, group_id: group, node_id, from_node: true, success: true, finished_at: new Date() });
    let firstInserted!: () => void;
    const inserted = new Promise<void>((r) => { firstInserted = r; });
    let releaseFirst!: () => void;
    const gate = new Promise<void>((r) => { releaseFirst = r; });
    const a = sql.begin(async (tx) => {
      await tx`INSERT INTO probe_results ${tx(result(group))}`;
      firstInserted();
      await gate;
    });
    const b = (async () => {
      await inserted;
      // Starts while the first transaction is open: without the per-group lock neither would see both results.
      const done = sql.begin(async (tx) => { await tx`INSERT INTO probe_results ${tx(result(second))}`; });
      setTimeout(releaseFirst, 200);
      await done;
    })();
    await Promise.all([a, b]);
    const rows = await sql`SELECT 1 FROM event_outbox WHERE type = 'probe.completed' AND subject_id = ${group}`;
    t.equal(rows.length, 1, `round ${round}: one probe.completed`);
  }
});
