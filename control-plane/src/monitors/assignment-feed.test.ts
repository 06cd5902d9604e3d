import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { roundPhaseMs, serverMessageSchema, type ServerMessage } from '@vantage/shared-protocol';
import { loadConfig, type Config } from '../config/index.js';
import { connect } from '../db/sql.js';
import { createHub } from '../hub/hub.js';
import { enrollNode, helloNode, makeToken, recordingSink, waitFor } from '../hub/test-harness.js';
import { createLogger } from '../log.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import type { TestNode } from '../test-support/test-node.js';
import { createAssignmentFeed } from './assignment-feed.js';
import { assignmentSets } from './assignments.db.js';

/*
 * Assignments reach simulated nodes (TestNode: the real protocol, no agent) held by either of two
 * control-plane instances on one database: a full set on connect, deltas on every change, acks
 * recorded, a node that holds another version gets a full set.
 */

const CONFIG: Partial<Config> = { probe_allow_cidrs: ['198.18.0.0/15'], plan: 'business', instance_id: 'inst-a' };
const { app, sql, url, deps } = await testApp(t, { config: CONFIG });

// A second instance: its own pool, hub and feed on the same database.
const configB = loadConfig({}, { ...CONFIG, database_url: deps.config.database_url, instance_id: 'inst-b', log_level: 'silent', heartbeat_interval_ms: 2000 });
const sqlB = connect(configB.database_url!, 4);
const feedB = createAssignmentFeed({ sql: sqlB, log: createLogger('silent'), config: configB });
await feedB.start();
const hubB = createHub({ sql: sqlB, log: createLogger('silent'), config: configB, results: recordingSink(), assignments: feedB });
await hubB.ready();
const serverB = createServer((_req, res) => res.writeHead(404).end());
hubB.attach(serverB);
await new Promise<void>((resolve) => serverB.listen(0, '127.0.0.1', resolve));
const baseB = `http://127.0.0.1:${(serverB.address() as AddressInfo).port}`;
t.teardown(async () => {
  await hubB.close();
  await feedB.stop();
  serverB.closeAllConnections();
  await new Promise<void>((resolve) => serverB.close(() => resolve()));
  await sqlB.end({ timeout: 5 });
});

const user = await registerUser(app);
const api = (method: string, path: string, body?: unknown) => call(app, method, path, { token: user.access_token, body });

type Frame<T extends ServerMessage['type']> = Extract<ServerMessage, { type: T }>;
/** The next assignments frame of `node`, acked like an agent would (the version it then holds). */
async function nextAssignments(node: TestNode, held: { version: number }): Promise<Frame<'assignments.full'> | Frame<'assignments.delta'>> {
  const m = await node.next();
  if (m.type !== 'assignments.full' && m.type !== 'assignments.delta') throw new Error(`expected assignments, got ${JSON.stringify(m)}`);
  if (m.type === 'assignments.full' || m.from_version === held.version) held.version = m.version;
  node.send({ type: 'assignments.ack', version: held.version });
  return m;
}

t.test('full set on connect, deltas on create, change, pause, resume and delete, on both instances', async (t) => {
  const a = await enrollNode(base(), await makeToken(sql, { country_code: 'DE' }), 'probe-a');
  const b = await enrollNode(baseB, await makeToken(sql, { country_code: 'FR' }), 'probe-b');
  t.teardown(() => { a.node.close(); b.node.close(); });
  const ha = { version: -1 };
  const hb = { version: -1 };
  t.match(await nextAssignments(a.node, ha), { type: 'assignments.full', assignments: [] }, 'A: its (empty) set on connect');
  t.match(await nextAssignments(b.node, hb), { type: 'assignments.full', assignments: [] }, 'B: its (empty) set on connect');

  const created = await api('POST', '/v1/monitors', { name: 'shop', type: 'https', target: 'https://198.18.1.10/', interval_s: 60, node_count: 2 });
  t.equal(created.status, 201);
  const m = created.body.data;
  t.same([...m.node_ids].sort(), [a.node_id, b.node_id].sort(), 'placed on both nodes');
  for (const [node, held] of [[a.node, ha], [b.node, hb]] as const) {
    const d = await nextAssignments(node, held);
    t.match(d, { type: 'assignments.delta', remove: [] });
    t.ok(serverMessageSchema.safeParse(d).success, 'a valid frame');
    const upsert = (d as Frame<'assignments.delta'>).upsert;
    t.equal(upsert.length, 1);
    t.match(upsert[0], { monitor_id: m.id, interval_s: 60, phase_ms: roundPhaseMs(m.id, 60), check: { type: 'https', target: 'https://198.18.1.10/' }, policy: { allow_private: false } });
  }
  await waitFor(async () => {
    const rows = await sql<{ node_id: string; acked: boolean }[]>`SELECT node_id, acked_version = version AS acked FROM node_assignments WHERE node_id IN (${a.node_id}, ${b.node_id})`;
    return rows.length === 2 && rows.every((r) => r.acked);
  });
  t.pass('the version each node acked is recorded');

  t.equal((await api('PATCH', `/v1/monitors/${m.id}`, { interval_s: 300 })).status, 200);
  for (const [node, held] of [[a.node, ha], [b.node, hb]] as const) {
    const d = await nextAssignments(node, held) as Frame<'assignments.delta'>;
    t.match(d.upsert, [{ monitor_id: m.id, interval_s: 300, phase_ms: roundPhaseMs(m.id, 300) }], 'a change reaches every node');
  }
  t.equal((await api('POST', `/v1/monitors/${m.id}/pause`)).status, 200);
  for (const [node, held] of [[a.node, ha], [b.node, hb]] as const) t.match(await nextAssignments(node, held), { upsert: [], remove: [m.id] }, 'paused: removed');
  t.same((await api('GET', `/v1/monitors/${m.id}`)).body.data.node_ids.sort(), [a.node_id, b.node_id].sort(), 'a paused monitor keeps its placement');
  t.equal((await api('POST', `/v1/monitors/${m.id}/resume`)).status, 200);
  for (const [node, held] of [[a.node, ha], [b.node, hb]] as const) t.match(await nextAssignments(node, held), { upsert: [{ monitor_id: m.id }], remove: [] }, 'resumed: back');
  t.equal((await api('DELETE', `/v1/monitors/${m.id}`)).status, 200);
  for (const [node, held] of [[a.node, ha], [b.node, hb]] as const) t.match(await nextAssignments(node, held), { upsert: [], remove: [m.id] }, 'deleted: removed');
});

t.test('a node that holds another version gets a full set; a reconnecting node gets its whole set', async (t) => {
  const b = await enrollNode(baseB, await makeToken(sql, { country_code: 'JP' }), 'probe-c');
  const hb = { version: -1 };
  await nextAssignments(b.node, hb);
  // The nodes of the test before are offline: the monitor can only land here.
  await waitFor(async () => (await sql`SELECT count(*)::int AS n FROM nodes WHERE status = 'online'`)[0]!.n === 1);
  const m = (await api('POST', '/v1/monitors', { name: 'c', type: 'ping', target: '198.18.1.10', interval_s: 60, node_count: 1 })).body.data;
  t.same(m.node_ids, [b.node_id], 'the only online node (those of the test before are gone)');
  const d = await nextAssignments(b.node, hb);
  t.match(d, { type: 'assignments.delta', upsert: [{ monitor_id: m.id }] }, 'the monitor reached the node');

  b.node.send({ type: 'assignments.ack', version: 1 }); // as a node that missed a delta would
  const full = await b.node.next('assignments.full');
  t.ok(full.assignments.some((x) => x.monitor_id === m.id), 'a full set, with the monitor');

  b.node.close();
  await b.node.closed;
  const again = await helloNode(baseB, b.credential, b.node_id);
  t.teardown(() => again.close());
  const reconnect = await again.next('assignments.full');
  t.same(reconnect.assignments.map((x) => x.monitor_id), [m.id], 'its whole set on reconnect');
});

t.test('nodes saying hello together each get their own whole set (read for all in one statement)', async (t) => {
  await waitFor(async () => (await sql`SELECT count(*)::int AS n FROM nodes WHERE status = 'online'`)[0]!.n === 0);
  const one = await enrollNode(baseB, await makeToken(sql, { country_code: 'BR' }), 'probe-d');
  await nextAssignments(one.node, { version: -1 });
  const m1 = (await api('POST', '/v1/monitors', { name: 'd', type: 'ping', target: '198.18.1.11', interval_s: 60, node_count: 1 })).body.data;
  t.same(m1.node_ids, [one.node_id]);
  const two = await enrollNode(baseB, await makeToken(sql, { country_code: 'AR' }), 'probe-e');
  const m2 = (await api('POST', '/v1/monitors', { name: 'e', type: 'ping', target: '198.18.1.12', interval_s: 60, node_count: 2 })).body.data;
  t.same([...m2.node_ids].sort(), [one.node_id, two.node_id].sort());

  const sets = await assignmentSets(sql, [one.node_id, two.node_id, 'node_unknown']);
  t.same(sets.get(one.node_id)!.rows.map((r) => r.id).sort(), [m1.id, m2.id].sort());
  t.same(sets.get(two.node_id)!.rows.map((r) => r.id), [m2.id]);
  t.ok(sets.get(one.node_id)!.version > 0 && sets.get(two.node_id)!.version > 0, 'each its version');
  t.same(sets.get('node_unknown'), { version: 0, node: { owner_user_id: null, team_id: null, platform: false }, rows: [] }, 'a node never assigned: version 0, nothing, trusted with nothing');

  one.node.close();
  two.node.close();
  await Promise.all([one.node.closed, two.node.closed]);
  const again = await Promise.all([helloNode(baseB, one.credential, one.node_id), helloNode(baseB, two.credential, two.node_id)]);
  t.teardown(() => { for (const n of again) n.close(); });
  const [full1, full2] = await Promise.all(again.map((n) => n.next('assignments.full')));
  t.same(full1!.assignments.map((x) => x.monitor_id).sort(), [m1.id, m2.id].sort());
  t.same(full2!.assignments.map((x) => x.monitor_id), [m2.id]);
  t.equal(full1!.version, sets.get(one.node_id)!.version);
});

function base(): string {
  return url;
}
