import t, { type Test } from 'tap';
import { enrollNode, waitFor } from '../hub/test-harness.js';
import { createPlacementEngine } from '../monitors/placement-engine.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { applyPlatformNodeOwners } from './platform-nodes.db.js';
import { seedTeam } from '../teams/test-support.js';

/*
 * Node sharing (docs/api/nodes.md "Sharing", "Platform nodes"): a node serves other accounts'
 * probes and monitors only when its owner shares it (enrollment token `shared`, later PATCH
 * /v1/nodes/{id}) or when it is a platform node. Accounts A and B each enroll a node through the
 * real hub with tokens made through the API: A's with the default (not shared), B's shared.
 */

async function setup(t: Test) {
  const ctx = await testApp(t, { config: { probe_allow_cidrs: ['198.18.0.0/15'], public_probes: 'anonymous', plan: 'business' } });
  const a = await registerUser(ctx.app);
  const b = await registerUser(ctx.app);
  const token = async (owner: { access_token: string }, body: Record<string, unknown>) => {
    const res = await call(ctx.app, 'POST', '/v1/enrollment-tokens', { token: owner.access_token, body });
    if (res.status !== 201) throw new Error(JSON.stringify(res.body));
    return res.body.data.token as string;
  };
  const nodeA = await enrollNode(ctx.url, await token(a, { country_code: 'DE' }), 'probe-of-a');
  const nodeB = await enrollNode(ctx.url, await token(b, { country_code: 'FR', shared: true }), 'probe-of-b');
  t.teardown(() => { nodeA.node.close(); nodeB.node.close(); });
  // Tasks and assignments sent to the test nodes are not answered: only where they go matters here.
  nodeA.node.onFrame = () => true;
  nodeB.node.onFrame = () => true;
  const probeNodes = async (token: string | undefined, body: Record<string, unknown> = {}) => {
    const res = await call(ctx.app, 'POST', '/v1/probe/tcp', { token, body: { target: '198.18.1.10:443', ...body } });
    if (res.status !== 202) return { status: res.status, error: res.body.error, nodes: [] as string[] };
    const rows = await ctx.sql<{ node_id: string }[]>`SELECT node_id FROM probe_tasks WHERE id = ANY(${res.body.data.task_ids}::text[])`;
    return { status: res.status, error: null, nodes: rows.map((r) => r.node_id).sort() };
  };
  return { ...ctx, a, b, nodeA, nodeB, probeNodes };
}

t.test('tokens carry shared (default false) to the node they enroll; the owner changes it later', async (t) => {
  const s = await setup(t);
  const tokens = (await call(s.app, 'GET', '/v1/enrollment-tokens', { token: s.a.access_token })).body.data.tokens;
  t.same(tokens.map((x: { shared: boolean }) => x.shared), [false], 'the token listing says so');
  t.equal((await call(s.app, 'GET', `/v1/nodes/${s.nodeA.node_id}`)).body.data.shared, false, 'A\'s node: not shared by default');
  t.equal((await call(s.app, 'GET', `/v1/nodes/${s.nodeB.node_id}`)).body.data.shared, true, 'B\'s node: shared at enrollment');
  const bad = await call(s.app, 'POST', '/v1/enrollment-tokens', { token: s.a.access_token, body: { shared: 'yes' } });
  t.equal(bad.status, 400);
  t.match(bad.body.error, { code: 'VALIDATION_FAILED' });
  t.equal((await call(s.app, 'PATCH', `/v1/nodes/${s.nodeA.node_id}`, { token: s.b.access_token, body: { shared: true } })).status, 403, 'not B\'s node to share');
  t.equal((await call(s.app, 'PATCH', `/v1/nodes/${s.nodeA.node_id}`, { token: s.a.access_token, body: { shared: 1 } })).status, 400);
  const patched = await call(s.app, 'PATCH', `/v1/nodes/${s.nodeA.node_id}`, { token: s.a.access_token, body: { shared: true } });
  t.equal(patched.status, 200);
  t.equal(patched.body.data.shared, true);
});

t.test('probes: other accounts and anonymous callers never get an unshared node; its owner does', async (t) => {
  const s = await setup(t);
  const both = [s.nodeA.node_id, s.nodeB.node_id].sort();
  t.same((await s.probeNodes(undefined, { nodes: { count: 5 } })).nodes, [s.nodeB.node_id], 'anonymous: the shared node only');
  t.same((await s.probeNodes(s.b.access_token, { nodes: { count: 5 } })).nodes, [s.nodeB.node_id], 'B: its own node, not A\'s');
  t.same((await s.probeNodes(s.b.access_token, { nodes: { count: 40 } })).nodes, [s.nodeB.node_id], 'B, a pick that reads every candidate: the same');
  t.same((await s.probeNodes(s.a.access_token, { nodes: { count: 5 } })).nodes, both, 'A: its own unshared node and B\'s shared one');
  t.same((await s.probeNodes(s.a.access_token, { node_ids: [s.nodeA.node_id] })).nodes, [s.nodeA.node_id], 'A names its own node');
  const named = await s.probeNodes(s.b.access_token, { node_ids: [s.nodeB.node_id, s.nodeA.node_id] });
  t.equal(named.status, 403, 'B names A\'s unshared node');
  t.match(named.error, { code: 'FORBIDDEN', message: /not shared/, details: { node_ids: [s.nodeA.node_id] } });
  const none = await s.probeNodes(s.b.access_token, { nodes: { count: 1, countries: ['DE'] } });
  t.match(none, { status: 422, error: { code: 'PROBE_TOO_FEW_NODES' } }, 'B asks for A\'s country: no node serves it there');

  await s.sql`UPDATE users SET is_admin = true WHERE id = ${s.a.user_id}`;
  t.equal((await call(s.app, 'PATCH', `/v1/admin/nodes/${s.nodeA.node_id}`, { token: s.a.access_token, body: { platform: true } })).status, 200);
  t.same((await s.probeNodes(undefined, { nodes: { count: 5 } })).nodes, both, 'a platform node serves everyone, unshared or not');
  t.same((await s.probeNodes(s.b.access_token, { node_ids: [s.nodeA.node_id] })).nodes, [s.nodeA.node_id]);
});

t.test("a workspace token's probes: its team's nodes and shared ones, never its creator's personal node", async (t) => {
  const s = await setup(t);
  const team_id = await seedTeam(s.sql, { owner: s.a });
  const enrolled = await call(s.app, 'POST', '/v1/enrollment-tokens', { token: s.a.access_token, body: { team_id, country_code: 'US' } });
  const teamNode = await enrollNode(s.url, enrolled.body.data.token, 'probe-of-team');
  t.teardown(() => teamNode.node.close());
  teamNode.node.onFrame = () => true;
  const key = await call(s.app, 'POST', '/v1/account/api-keys', { token: s.a.access_token, body: { name: 'ws', team_id } });
  t.equal(key.status, 201, JSON.stringify(key.body));
  const ws: string = key.body.data.key;

  const all = [s.nodeA.node_id, s.nodeB.node_id, teamNode.node_id].sort();
  t.same((await s.probeNodes(s.a.access_token, { nodes: { count: 5 } })).nodes, all, 'A\'s session: its own node, its team\'s and the shared one');
  const byToken = [s.nodeB.node_id, teamNode.node_id].sort();
  t.same((await s.probeNodes(ws, { nodes: { count: 5 } })).nodes, byToken, 'the workspace token: the team\'s node and the shared one, not A\'s personal node');
  t.same((await s.probeNodes(ws, { nodes: { count: 40 } })).nodes, byToken, 'a pick that reads every candidate: the same');
  const named = await s.probeNodes(ws, { node_ids: [s.nodeA.node_id] });
  t.equal(named.status, 403, 'naming the creator\'s personal node is refused');
  t.match(named.error, { code: 'FORBIDDEN', details: { node_ids: [s.nodeA.node_id] } });
  const there = await s.probeNodes(ws, { nodes: { count: 1, countries: ['DE'] } });
  t.match(there, { status: 422, error: { code: 'PROBE_TOO_FEW_NODES' } }, 'A\'s personal node\'s country has no node for the token');
});

t.test('monitors: placed only on nodes that serve their owner, moved when sharing changes', async (t) => {
  const s = await setup(t);
  const engine = createPlacementEngine({ sql: s.sql, log: s.deps.log, config: s.deps.config });
  const monitor = { name: 'site', type: 'https', target: 'https://198.18.1.10/', interval_s: 60, node_count: 2 };
  const ofB = (await call(s.app, 'POST', '/v1/monitors', { token: s.b.access_token, body: monitor })).body.data;
  t.same(ofB.node_ids, [s.nodeB.node_id], 'B\'s monitor: B\'s node only, not A\'s unshared one');
  t.match(ofB.placement, { status: 'short', message: /your own, shared and platform nodes/ });
  const ofA = (await call(s.app, 'POST', '/v1/monitors', { token: s.a.access_token, body: monitor })).body.data;
  t.same([...ofA.node_ids].sort(), [s.nodeA.node_id, s.nodeB.node_id].sort(), 'A\'s monitor: its own node and B\'s shared one');

  const nodesOf = async (id: string, token: string) => [...(await call(s.app, 'GET', `/v1/monitors/${id}`, { token })).body.data.node_ids].sort();
  // A shares its node: B's monitor, short of nodes, is due at once (0045's trigger) and placed there.
  t.equal((await call(s.app, 'PATCH', `/v1/nodes/${s.nodeA.node_id}`, { token: s.a.access_token, body: { shared: true } })).status, 200);
  const [due] = await s.sql<{ due: boolean }[]>`SELECT due_at <= now() AS due FROM placement_queue WHERE monitor_id = ${ofB.id}`;
  t.equal(due?.due, true, 'the short monitor is due now, not at its next retry');
  await engine.runQueue();
  t.same(await nodesOf(ofB.id, s.b.access_token), [s.nodeA.node_id, s.nodeB.node_id].sort(), 'B\'s monitor now runs on A\'s shared node too');

  // A stops sharing: B's monitor leaves A's node; A's own monitor stays.
  t.equal((await call(s.app, 'PATCH', `/v1/nodes/${s.nodeA.node_id}`, { token: s.a.access_token, body: { shared: false } })).status, 200);
  t.ok((await s.sql`SELECT 1 FROM placement_queue WHERE monitor_id = ${ofB.id}`).length === 1, 'queued by the change');
  await waitFor(async () => { await engine.runQueue(); return (await nodesOf(ofB.id, s.b.access_token)).length === 1; });
  t.same(await nodesOf(ofB.id, s.b.access_token), [s.nodeB.node_id], 'moved off A\'s node');
  t.same(await nodesOf(ofA.id, s.a.access_token), [s.nodeA.node_id, s.nodeB.node_id].sort(), 'A\'s monitor keeps its own node');
});

t.test('administrators mark platform nodes: 403 for others, 404 unknown, audited, kept by the start-up sync', async (t) => {
  const s = await setup(t);
  const admin = await registerUser(s.app);
  // The administrator alone (the first account of a deployment may have become one).
  await s.sql`UPDATE users SET is_admin = (id = ${admin.user_id})`;
  const path = `/v1/admin/nodes/${s.nodeA.node_id}`;
  t.equal((await call(s.app, 'GET', '/v1/admin/nodes')).status, 401, 'anonymous: 401');
  const denied = await call(s.app, 'PATCH', path, { token: s.a.access_token, body: { platform: true } });
  t.equal(denied.status, 403, 'the node\'s owner is no administrator');
  t.match(denied.body.error, { code: 'FORBIDDEN' });
  t.equal((await call(s.app, 'GET', '/v1/admin/nodes', { token: s.b.access_token })).status, 403);
  t.equal((await call(s.app, 'PATCH', '/v1/admin/nodes/n_00000000000000000000000000', { token: admin.access_token, body: { platform: true } })).status, 404, 'unknown id');
  t.equal((await call(s.app, 'PATCH', '/v1/admin/nodes/nope', { token: admin.access_token, body: { platform: true } })).status, 404, 'malformed id');
  t.equal((await call(s.app, 'PATCH', path, { token: admin.access_token, body: { platform: 'yes' } })).status, 400);
  t.equal((await call(s.app, 'PATCH', path, { token: admin.access_token, body: {} })).status, 400);
  t.equal((await s.sql`SELECT 1 FROM nodes WHERE platform`).length, 0, 'nothing changed by the refusals');
  t.equal((await s.sql`SELECT 1 FROM admin_audit`).length, 0);

  const marked = await call(s.app, 'PATCH', path, { token: admin.access_token, body: { platform: true } });
  t.equal(marked.status, 200);
  t.match(marked.body.data, { id: s.nodeA.node_id, platform: true, platform_source: 'admin', shared: false, owner_email: s.a.email });
  const audit = await s.sql`SELECT actor_user_id, action, target_id, details FROM admin_audit`;
  t.same(audit.map((r) => ({ ...r })), [{ actor_user_id: admin.user_id, action: 'node.platform', target_id: s.nodeA.node_id, details: { platform: true, before: false } }], 'one audit row');
  t.equal((await call(s.app, 'GET', `/v1/nodes/${s.nodeA.node_id}`)).body.data.platform, true, 'the public detail shows it');

  const list = await call(s.app, 'GET', '/v1/admin/nodes', { token: admin.access_token });
  t.equal(list.status, 200);
  t.match(list.body.data, { total: 2, has_more: false });
  t.same(list.body.data.items.map((n: { id: string }) => n.id).sort(), [s.nodeA.node_id, s.nodeB.node_id].sort(), 'every account\'s nodes');
  t.same((await call(s.app, 'GET', '/v1/admin/nodes?platform=true', { token: admin.access_token })).body.data.items.map((n: { id: string }) => n.id), [s.nodeA.node_id]);
  t.same((await call(s.app, 'GET', '/v1/admin/nodes?shared=true', { token: admin.access_token })).body.data.items.map((n: { id: string }) => n.id), [s.nodeB.node_id]);

  // The start-up sync of VANTAGE_PLATFORM_NODE_OWNERS (an empty list) leaves the administrator's mark.
  t.same(await applyPlatformNodeOwners(s.sql, []), { marked: 0, unmarked: 0 });
  t.equal((await s.sql`SELECT platform FROM nodes WHERE id = ${s.nodeA.node_id}`)[0]!.platform, true, 'still a platform node');
  // An administrator's unmark sticks too, even for a node of a listed owner.
  await s.sql`UPDATE users SET email_verified = true WHERE id = ${s.b.user_id}`;
  t.equal((await call(s.app, 'PATCH', `/v1/admin/nodes/${s.nodeB.node_id}`, { token: admin.access_token, body: { platform: false } })).status, 200);
  t.same(await applyPlatformNodeOwners(s.sql, [s.b.email]), { marked: 0, unmarked: 0 }, 'B is listed, but an administrator said no');
  t.equal((await s.sql`SELECT platform FROM nodes WHERE id = ${s.nodeB.node_id}`)[0]!.platform, false);
});
