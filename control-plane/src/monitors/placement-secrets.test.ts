import t, { type Test } from 'tap';
import type { Config } from '../config/index.js';
import { enrollNode, helloNode, makeToken, waitFor } from '../hub/test-harness.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { recordAssignments, type TestNode } from '../test-support/test-node.js';
import { createPlacementEngine } from './placement-engine.js';

/*
 * Secret request headers reach only nodes trusted with the monitor owner's secrets (docs/api/monitors.md
 * "Secrets in headers"): the owner's own nodes and platform nodes. Two accounts each enroll a
 * node through the real hub; placement, the placement queue and the assignment feed run against
 * Postgres, and every frame the other account's node receives is kept and searched.
 */

const CONFIG: Partial<Config> = { probe_allow_cidrs: ['198.18.0.0/15'], plan: 'business' };
const BEARER = 'Bearer a-token-of-account-a-0123456789';
const COOKIE = 'session=account-a-session-cookie-abcdef';
const OPENAI_KEY = 'sk-proj-accountAkey0123456789abcdefABCD';
const SECRETS = [BEARER, COOKIE, OPENAI_KEY];


/**
 * Every assignments frame `node` receives from its first full set on (the one sent at enrollment,
 * taken from the queue), acked as an agent would, kept in `frames`; `holds(id)` is true when the
 * node's current set, as the frames built it, has monitor `id`.
 */
async function record(node: TestNode) {
  const { frames, holds } = await recordAssignments(node);
  return { frames, holds, leaked: () => SECRETS.filter((s) => JSON.stringify(frames).includes(s)) };
}

async function setup(t: Test, config: Partial<Config> = {}) {
  const ctx = await testApp(t, { config: { ...CONFIG, ...config } });
  const a = await registerUser(ctx.app);
  const b = await registerUser(ctx.app);
  const nodeA = await enrollNode(ctx.url, await makeToken(ctx.sql, { user_id: a.user_id, country_code: 'DE' }), 'probe-of-a');
  const nodeB = await enrollNode(ctx.url, await makeToken(ctx.sql, { user_id: b.user_id, country_code: 'FR' }), 'probe-of-b');
  t.teardown(() => { nodeA.node.close(); nodeB.node.close(); });
  const recA = await record(nodeA.node);
  const recB = await record(nodeB.node);
  const api = (token: string) => (method: string, path: string, body?: unknown) => call(ctx.app, method, path, { token, body });
  return { ...ctx, a, b, nodeA, nodeB, recA, recB, apiA: api(a.access_token), apiB: api(b.access_token) };
}

const secretMonitor = {
  name: 'llm of a', type: 'llm_endpoint', target: 'https://198.18.1.10/v1/chat/completions', interval_s: 60, node_count: 2,
  config: { headers: { Authorization: BEARER, Cookie: COOKIE, 'X-OpenAI-Key': OPENAI_KEY, 'Content-Type': 'application/json' }, model_name: 'm' },
};

t.test('a monitor with secret headers is placed only on its owner\'s node, and the other account\'s node never receives it', async (t) => {
  const s = await setup(t);
  const created = await s.apiA('POST', '/v1/monitors', secretMonitor);
  t.equal(created.status, 201, JSON.stringify(created.body));
  const m = created.body.data;
  t.same(m.node_ids, [s.nodeA.node_id], 'on A\'s node only, though 2 nodes were asked for');
  t.match(m.placement, { status: 'short', secret_headers: ['Authorization', 'Cookie', 'X-OpenAI-Key'] }, 'the record says it is short of nodes');
  t.match(m.placement?.message, /1 of 2 nodes.*secret.*your own nodes.*platform nodes/s, 'and why, in words');
  await waitFor(async () => s.recA.holds(m.id));
  t.ok(JSON.stringify(s.recA.frames).includes(BEARER), 'the owner\'s node got the secret it needs');

  // A plain monitor of A's goes to both nodes: B's node has seen every frame placement made for it.
  const plain = (await s.apiA('POST', '/v1/monitors', { name: 'plain', type: 'https', target: 'https://198.18.1.10/', interval_s: 60, node_count: 2 })).body.data;
  t.same([...plain.node_ids].sort(), [s.nodeA.node_id, s.nodeB.node_id].sort(), 'a monitor without secrets runs on anyone\'s node');
  t.equal(plain.placement?.status, 'placed');
  await waitFor(async () => s.recB.holds(plain.id));

  // The placement job retries a short monitor: still never on B's node.
  await s.sql`UPDATE placement_queue SET due_at = now() WHERE monitor_id = ${m.id}`;
  const engine = createPlacementEngine({ sql: s.sql, log: s.deps.log, config: s.deps.config });
  t.ok(await engine.runQueue() >= 1, 'the queued retry ran');
  const read = (await s.apiA('GET', `/v1/monitors/${m.id}`)).body.data;
  t.same(read.node_ids, [s.nodeA.node_id], 'the retry did not use B\'s node');
  t.equal(read.placement?.status, 'short');
  // A change of the monitor is placed again (by the request): still not on B's node.
  const patched = (await s.apiA('PATCH', `/v1/monitors/${m.id}`, { interval_s: 300 })).body.data;
  t.same(patched.node_ids, [s.nodeA.node_id]);

  // B's node reconnects: its whole set holds A's plain monitor and nothing of A's secrets.
  s.nodeB.node.close();
  await s.nodeB.node.closed;
  const again = await helloNode(s.url, s.nodeB.credential, s.nodeB.node_id);
  t.teardown(() => again.close());
  const full = await again.next('assignments.full');
  t.same(full.assignments.map((x) => x.monitor_id), [plain.id], 'B\'s full set: the plain monitor only');
  t.same(s.recB.leaked(), [], 'no frame B\'s node received carries A\'s bearer token, cookie or key');
  t.notOk(JSON.stringify(full).includes(BEARER), 'nor does its full set');

  // A plain monitor that gains a secret header leaves B's node.
  const gained = await s.apiA('PATCH', `/v1/monitors/${plain.id}`, { config: { headers: { 'X-Api-Key': OPENAI_KEY } } });
  t.equal(gained.status, 200);
  t.same(gained.body.data.node_ids, [s.nodeA.node_id], 'moved off B\'s node by the same request');
  const left = await again.next('assignments.delta');
  t.same(left.remove, [plain.id], 'B\'s node is told to drop it');
  t.notOk(JSON.stringify(left).includes(OPENAI_KEY), 'without ever seeing the new secret');
});

t.test('the assignment feed refuses to send secrets to an untrusted node even when placement put the monitor there', async (t) => {
  const s = await setup(t);
  const created = await s.apiA('POST', '/v1/monitors', { ...secretMonitor, node_count: 1 });
  const m = created.body.data;
  t.same(m.node_ids, [s.nodeA.node_id], 'placement chose A\'s node');
  // A placement bug (simulated by writing the row placement never would): B's node is bumped.
  await s.sql`INSERT INTO monitor_placements (monitor_id, node_id, revision) SELECT id, ${s.nodeB.node_id}, revision FROM monitors WHERE id = ${m.id}
    ON CONFLICT (monitor_id, node_id) DO UPDATE SET ended_at = NULL`;
  const before = s.recB.frames.length;
  await s.sql`SELECT bump_node_assignments(ARRAY[${s.nodeB.node_id}]::text[])`;
  await waitFor(async () => s.recB.frames.length > before);
  t.notOk(s.recB.holds(m.id), 'the delta left the monitor out');
  s.nodeB.node.close();
  await s.nodeB.node.closed;
  const again = await helloNode(s.url, s.nodeB.credential, s.nodeB.node_id);
  t.teardown(() => again.close());
  const full = await again.next('assignments.full');
  t.same(full.assignments, [], 'the full set on reconnect leaves it out too');
  t.same(s.recB.leaked(), [], 'no secret reached B\'s node');
  t.notOk(JSON.stringify(full).includes(BEARER));

  // As a platform node it may hold the monitor; once it loses the mark, its next set leaves it out.
  await s.sql`UPDATE nodes SET platform = true WHERE id = ${s.nodeB.node_id}`;
  await s.sql`SELECT bump_node_assignments(ARRAY[${s.nodeB.node_id}]::text[])`;
  const given = await again.next('assignments.full');
  t.same(given.assignments.map((a) => a.monitor_id), [m.id], 'a platform node receives it (its mark changed: a full set)');
  again.send({ type: 'assignments.ack', version: given.version });
  await s.sql`UPDATE nodes SET platform = false WHERE id = ${s.nodeB.node_id}`;
  await s.sql`SELECT bump_node_assignments(ARRAY[${s.nodeB.node_id}]::text[])`;
  const taken = await again.next('assignments.full');
  t.same(taken.assignments, [], 'no longer a platform node: a full set, judged anew, without it');
});

t.test('platform nodes: marked by the operator (accounts named in VANTAGE_PLATFORM_NODE_OWNERS), trusted with every account\'s secrets', async (t) => {
  const s = await setup(t, { platform_node_owners: ['ops@example.test'] });
  const ops = await registerUser(s.app, 'ops@example.test');
  // Only a verified address counts: anyone could register an address nobody verified.
  const early = await enrollNode(s.url, await makeToken(s.sql, { user_id: ops.user_id, country_code: 'JP' }), 'probe-unverified');
  t.teardown(() => early.node.close());
  t.equal((await call(s.app, 'GET', `/v1/nodes/${early.node_id}`)).body.data.platform, false, 'the address is not verified yet: not a platform node');
  await s.sql`UPDATE users SET email_verified = true WHERE id = ${ops.user_id}`;
  const fleet = await enrollNode(s.url, await makeToken(s.sql, { user_id: ops.user_id, country_code: 'US' }), 'probe-platform');
  t.teardown(() => fleet.node.close());
  const recP = await record(fleet.node);
  t.equal((await call(s.app, 'GET', `/v1/nodes/${fleet.node_id}`)).body.data.platform, true, 'enrolled by the operator\'s account: a platform node, shown to everyone');
  t.equal((await call(s.app, 'GET', `/v1/nodes/${s.nodeB.node_id}`)).body.data.platform, false);

  await s.sql`UPDATE nodes SET status = 'offline' WHERE id = ${early.node_id}`; // out of the way
  const m = (await s.apiA('POST', '/v1/monitors', secretMonitor)).body.data;
  t.same([...m.node_ids].sort(), [s.nodeA.node_id, fleet.node_id].sort(), 'A\'s node and the platform node');
  t.equal(m.placement?.status, 'placed');
  t.equal(m.placement?.message, null);
  await waitFor(async () => recP.holds(m.id));
  t.ok(JSON.stringify(recP.frames).includes(BEARER), 'the platform node received the secret');
  t.same(s.recB.leaked(), [], 'B\'s node did not');
});
