import t from 'tap';
import type { ServerMessage } from '@vantage/shared-protocol';
import { enrollNode, makeToken } from '../hub/test-harness.js';
import { call, registerUser, testApp } from '../test-support/app.js';

/*
 * Ad-hoc probes whose request headers carry secrets go only to nodes trusted with the requester's
 * secrets (docs/api/probes.md "Node selection"): the requester's own nodes and platform nodes;
 * an anonymous requester's, to platform nodes only. Real hub, real nodes' sockets, real database.
 */

const BEARER = 'Bearer probe-secret-of-account-a-0123456789';
const TARGET = 'https://198.18.1.10/health';

t.test('a probe with secret headers selects only nodes trusted with the requester\'s secrets', async (t) => {
  const ctx = await testApp(t, { config: { probe_allow_cidrs: ['198.18.0.0/15'], platform_node_owners: ['ops@example.test'] } });
  const a = await registerUser(ctx.app);
  const b = await registerUser(ctx.app);
  const ops = await registerUser(ctx.app, 'ops@example.test');
  await ctx.sql`UPDATE users SET email_verified = true WHERE id = ${ops.user_id}`;
  const nodeA = await enrollNode(ctx.url, await makeToken(ctx.sql, { user_id: a.user_id, country_code: 'DE' }), 'probe-of-a');
  const nodeB = await enrollNode(ctx.url, await makeToken(ctx.sql, { user_id: b.user_id, country_code: 'FR' }), 'probe-of-b');
  t.teardown(() => { nodeA.node.close(); nodeB.node.close(); });
  const seenByB: ServerMessage[] = [];
  nodeB.node.onFrame = (m) => { seenByB.push(m); return false; };
  const probe = (token: string | null, body: Record<string, unknown>) => call(ctx.app, 'POST', '/v1/probe/http', { token: token ?? undefined, body: { target: TARGET, ...body } });

  // Account A asks for 2 nodes with its bearer token: only its own node qualifies; the probe runs there alone.
  const auto = await probe(a.access_token, { params: { headers: { Authorization: BEARER } }, nodes: { count: 2 } });
  t.equal(auto.status, 202, JSON.stringify(auto.body));
  t.equal(auto.body.data.task_ids.length, 1, 'fewer trusted nodes than asked for: the probe runs on those there are');
  const task = await nodeA.node.next('task.run');
  t.equal(task.task_id, auto.body.data.task_id, 'on A\'s node');
  t.match(task.check, { params: { headers: { Authorization: BEARER } } });
  const [row] = await ctx.sql<{ node_id: string }[]>`SELECT node_id FROM probe_tasks WHERE id = ${auto.body.data.task_id}`;
  t.equal(row!.node_id, nodeA.node_id);

  // Naming B's node explicitly is refused, and creates nothing.
  const explicit = await probe(a.access_token, { params: { headers: { Authorization: BEARER } }, node_ids: [nodeA.node_id, nodeB.node_id] });
  t.equal(explicit.status, 403);
  t.match(explicit.body.error, { code: 'FORBIDDEN', details: { node_ids: [nodeB.node_id], headers: ['Authorization'] } });
  t.match(explicit.body.error.message, /Authorization carry secrets/);
  t.equal((await ctx.sql`SELECT 1 FROM probe_tasks WHERE node_id = ${nodeB.node_id}`).length, 0, 'no task was stored for B\'s node');

  // Anonymous with a secret header: platform nodes only, and there is none yet.
  const anon = await probe(null, { params: { headers: { Cookie: 'session=anonymous-session' } }, nodes: { count: 3 } });
  t.equal(anon.status, 422);
  t.match(anon.body.error, { code: 'PROBE_TOO_FEW_NODES', details: { headers: ['Cookie'] } });
  t.match(anon.body.error.message, /secret.*platform nodes/);
  // Headers that never carry a credential go anywhere, as before.
  const open = await probe(null, { params: { headers: { Accept: 'text/html', 'User-Agent': 'x' } }, nodes: { count: 3 } });
  t.equal(open.status, 202);
  t.equal(open.body.data.task_ids.length, 2, 'both nodes');

  // A platform node joins: the anonymous probe runs there, and A's runs on its own node and the platform node.
  const fleet = await enrollNode(ctx.url, await makeToken(ctx.sql, { user_id: ops.user_id, country_code: 'US' }), 'probe-platform');
  t.teardown(() => fleet.node.close());
  const anon2 = await probe(null, { params: { headers: { Cookie: 'session=anonymous-session' } }, nodes: { count: 3 } });
  t.equal(anon2.status, 202, JSON.stringify(anon2.body));
  t.same((await ctx.sql<{ node_id: string }[]>`SELECT node_id FROM probe_tasks WHERE group_id = ${anon2.body.data.task_id}`).map((r) => r.node_id), [fleet.node_id], 'the platform node only');
  const both = await probe(a.access_token, { params: { headers: { Authorization: BEARER } }, nodes: { count: 3 } });
  t.equal(both.status, 202);
  t.same((await ctx.sql<{ node_id: string }[]>`SELECT node_id FROM probe_tasks WHERE group_id = ${both.body.data.task_id} ORDER BY node_id`).map((r) => r.node_id),
    [nodeA.node_id, fleet.node_id].sort(), 'A\'s node and the platform node');
  t.notOk(JSON.stringify(seenByB).includes('probe-secret-of-account-a') || JSON.stringify(seenByB).includes('anonymous-session'), 'B\'s node never received a secret');
});
