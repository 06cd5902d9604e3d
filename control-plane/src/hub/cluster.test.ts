import t from 'tap';
import { CLOSE_CODES, newId, taskRunMessageSchema } from '@vantage/shared-protocol';
import { testDatabase } from '../test-support/db.js';
import { enrollNode, helloNode, makeToken, startHub, waitFor } from './test-harness.js';

// Two control-plane instances on one database (DESIGN.md scale-out): routing by LISTEN/NOTIFY.
const { url, sql } = await testDatabase(t);
const a = await startHub(t, sql, url, { instance_id: 'inst-a' });
const b = await startHub(t, sql, url, { instance_id: 'inst-b' });

function tcpRun(task_id: string) {
  return taskRunMessageSchema.parse({ type: 'task.run', task_id, timeout_ms: 5000, check: { type: 'tcp', target: '198.18.0.10:443', params: {} } });
}

t.test('a task sent on instance A reaches a node connected to instance B', async (t) => {
  const { node, node_id } = await enrollNode(b.base, await makeToken(sql));
  t.teardown(() => node.close());
  t.same(a.hub.localNodeIds(), []);
  t.same(b.hub.localNodeIds(), [node_id]);
  const task_id = newId('probe_task');
  t.equal(await a.hub.sendTask(node_id, tcpRun(task_id)), 'sent');
  t.equal((await node.next('task.run')).task_id, task_id);
  await a.hub.cancelTask(node_id, { type: 'task.cancel', task_id });
  t.equal((await node.next('task.cancel')).task_id, task_id);
});

t.test('a message over the NOTIFY payload limit travels through the relay table', async (t) => {
  const { node, node_id } = await enrollNode(b.base, await makeToken(sql));
  t.teardown(() => node.close());
  const task_id = newId('probe_task');
  const body = 'x'.repeat(20_000);
  const msg = taskRunMessageSchema.parse({ type: 'task.run', task_id, timeout_ms: 10000, check: { type: 'http', target: 'http://198.18.0.10/', params: { method: 'POST', body } } });
  t.equal(await a.hub.sendTask(node_id, msg), 'sent');
  const got = await node.next('task.run');
  t.equal(got.check.type === 'http' && got.check.params.body?.length, 20_000);
  await waitFor(async () => (await sql`SELECT count(*)::int AS n FROM hub_relay_messages`)[0]!.n === 0);
  t.pass('relay row consumed');
});

t.test('an offline node is reported offline, not sent', async (t) => {
  const { node, node_id } = await enrollNode(b.base, await makeToken(sql));
  node.close();
  await node.closed;
  await waitFor(async () => (await sql`SELECT status FROM nodes WHERE id = ${node_id}`)[0]!.status === 'offline');
  t.equal(await a.hub.sendTask(node_id, tcpRun(newId('probe_task'))), 'offline');
  t.equal(await b.hub.sendTask(node_id, tcpRun(newId('probe_task'))), 'offline');
  t.equal(await a.hub.sendTask(newId('node'), tcpRun(newId('probe_task'))), 'offline', 'unknown node');
});

t.test('connecting to B replaces the socket held by A; disconnect on A closes a socket held by B', async (t) => {
  const { node, node_id, credential } = await enrollNode(a.base, await makeToken(sql));
  const moved = await helloNode(b.base, credential, node_id);
  t.equal((await node.closed).code, CLOSE_CODES.replaced.code, 'old socket on A closed as replaced');
  const [row] = await sql`SELECT status, instance_id FROM nodes WHERE id = ${node_id}`;
  t.match(row, { status: 'online', instance_id: 'inst-b' }, "A's close did not mark the node offline");
  await sql`UPDATE nodes SET status = 'disabled', instance_id = NULL WHERE id = ${node_id}`;
  await a.hub.disconnect(node_id, 'node_disabled');
  t.equal((await moved.closed).code, CLOSE_CODES.node_disabled.code);
});

t.test('crash recovery: a restarted instance marks the nodes it held offline', async (t) => {
  const id = newId('node');
  await sql`INSERT INTO nodes (id, name, status, instance_id, last_seen_at) VALUES (${id}, 'ghost', 'online', 'inst-crashed', now())`;
  await startHub(t, sql, url, { instance_id: 'inst-crashed' });
  const [row] = await sql`SELECT status, instance_id FROM nodes WHERE id = ${id}`;
  t.match(row, { status: 'offline', instance_id: null });
});

t.test('stale sweep: a node left online by a vanished instance goes offline', async (t) => {
  const id = newId('node');
  await sql`INSERT INTO nodes (id, name, status, instance_id, last_seen_at) VALUES (${id}, 'ghost2', 'online', 'inst-gone', now() - interval '1 hour')`;
  await waitFor(async () => (await sql`SELECT status FROM nodes WHERE id = ${id}`)[0]!.status === 'offline');
  t.pass('swept by a running instance');
});
