import t, { type Test } from 'tap';
import type { Config } from '../config/index.js';
import { connect } from '../db/sql.js';
import { createLogger } from '../log.js';
import { changeNodeStatus, removeNode } from '../nodes/nodes.db.js';
import { addNode } from '../probes/test-support.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { wasPlaced } from './assignments.db.js';
import { PLACEMENT_HISTORY_MS, startPlacementJob } from './placement-job.js';

/*
 * Placement over real Postgres with simulated nodes (rows in `nodes`, no sockets): spread,
 * capabilities, private targets, re-placement after the grace, two instances, rebalancing.
 */

const CONFIG: Partial<Config> = { probe_allow_cidrs: ['198.18.0.0/15'], plan: 'business', plan_monitors_max: 10_000, placement_grace_ms: 60_000, placement_interval_ms: 60_000 };
const ALL = ['http', 'ping', 'dns', 'tcp', 'traceroute'];

async function setup(t: Test, config: Partial<Config> = {}) {
  const ctx = await testApp(t, { config: { ...CONFIG, ...config } });
  const user = await registerUser(ctx.app);
  // The simulated nodes' holder (probes/test-support.ts addNode): a lease that stays fresh, so the
  // hub's lease sweep leaves them online.
  await ctx.sql`INSERT INTO hub_instances (instance_id, lease_at) VALUES ('test-instance', now() + interval '1 day')`;
  const job = startPlacementJob({ sql: ctx.sql, log: ctx.deps.log, config: ctx.deps.config });
  t.teardown(() => job.stop());
  const create = async (body: Record<string, unknown>, token = user.access_token) => {
    const res = await call(ctx.app, 'POST', '/v1/monitors', { token, body: { type: 'https', target: 'https://198.18.1.10/', ...body } });
    if (res.status !== 201) throw new Error(`create: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data as { id: string; node_ids: string[] };
  };
  const read = async (id: string) => (await call(ctx.app, 'GET', `/v1/monitors/${id}`, { token: user.access_token })).body.data as { node_ids: string[]; status: string };
  const countryOf = async (ids: string[]) => (await ctx.sql<{ country: string }[]>`SELECT country FROM nodes WHERE id = ANY(${ids}) ORDER BY country`).map((r) => r.country);
  return { ...ctx, user, job, create, read, countryOf };
}

t.test('a new monitor is placed at once, spread across countries then networks, and shown on the monitor', async (t) => {
  const s = await setup(t);
  for (const [country, asn] of [['DE', 1], ['DE', 1], ['DE', 2], ['FR', 3], ['FR', 4], ['JP', 5]] as const) await addNode(s.sql, { country, asn, capabilities: ALL });
  const m = await s.create({ name: 'spread', node_count: 3 });
  t.equal(m.node_ids.length, 3);
  t.same(await s.countryOf(m.node_ids), ['DE', 'FR', 'JP'], 'one node per country');
  t.same((await s.read(m.id)).node_ids, m.node_ids, 'GET shows the placement');
  const five = await s.create({ name: 'five', node_count: 5 });
  const asns = (await s.sql<{ asn: number }[]>`SELECT asn FROM nodes WHERE id = ANY(${five.node_ids})`).map((r) => r.asn);
  t.equal(new Set(asns).size, 5, 'a second node of a country comes from another network');
  const queued = await s.sql`SELECT 1 FROM placement_queue`;
  t.equal(queued.length, 0, 'placed by the request: nothing left for the job');
});

t.test('only nodes that advertise the capability; private targets only on the owner\'s nodes that allow them', async (t) => {
  const s = await setup(t);
  await Promise.all([1, 2, 3].map((asn) => addNode(s.sql, { country: 'DE', asn, capabilities: ['http', 'dns', 'tcp'] })));
  const icmp = await addNode(s.sql, { country: 'FR', asn: 9, capabilities: ALL });
  const ping = await s.create({ name: 'ping', type: 'ping', target: '198.18.1.10', node_count: 3 });
  t.same(ping.node_ids, [icmp], 'the one node with raw ICMP, though 3 were asked for');
  t.ok((await s.sql`SELECT 1 FROM placement_queue WHERE monitor_id = ${ping.id} AND reason = 'short of nodes'`).length, 'short: retried later');
  const http = await s.create({ name: 'http', node_count: 3 });
  t.equal(http.node_ids.length, 3);

  const mine = await addNode(s.sql, { country: 'US', asn: 7, capabilities: ALL, owner_user_id: s.user.user_id, allow_private: true });
  await addNode(s.sql, { country: 'US', asn: 8, capabilities: ALL, owner_user_id: s.user.user_id, allow_private: false });
  const priv = await s.create({ name: 'private', target: 'https://10.20.30.40/', node_count: 3 });
  t.same(priv.node_ids, [mine], 'private target: only my node that allows private targets');
  const other = await registerUser(s.app);
  const pub = await s.create({ name: 'public', node_count: 5 }, other.access_token);
  t.equal(pub.node_ids.length, 5, 'a public target runs on anyone\'s nodes');

  // The owner stops allowing private targets: the monitor leaves that node (queued by trigger).
  await s.sql`UPDATE nodes SET allow_private = false WHERE id = ${mine}`;
  await s.sql`UPDATE placement_queue SET due_at = now()`;
  await s.job.runOnce();
  t.same((await s.read(priv.id)).node_ids, [], 'no node may run it now');
});

t.test('re-placement: a node offline past the grace, disabled or removed loses its monitors; within the grace it keeps them', async (t) => {
  const s = await setup(t);
  const nodes = await Promise.all(['DE', 'FR', 'JP', 'US', 'BR', 'IN'].map((country, i) => addNode(s.sql, { country, asn: i + 1, capabilities: ALL })));
  for (let i = 0; i < 12; i++) await s.create({ name: `m${i}`, node_count: 3 });
  const victim = nodes[0]!;
  const onVictim = async () => (await s.sql`SELECT monitor_id FROM monitor_placements WHERE node_id = ${victim} AND ended_at IS NULL`).map((r) => r.monitor_id as string);
  const held = await onVictim();
  t.ok(held.length > 0, 'the node runs some monitors');

  await s.sql`UPDATE nodes SET status = 'offline', instance_id = NULL, last_seen_at = now() WHERE id = ${victim}`;
  await s.job.runOnce();
  t.same((await onVictim()).sort(), held.sort(), 'within the grace: kept');
  // A minute on: past the grace (its went-offline time moved back instead of waiting).
  await s.sql`UPDATE nodes SET last_seen_at = now() - interval '61 seconds' WHERE id = ${victim}`;
  await s.job.runOnce();
  t.same(await onVictim(), [], 'past the grace: moved');
  for (const id of held) {
    const m = await s.read(id);
    t.equal(m.node_ids.length, 3, 'still on 3 nodes');
    t.notOk(m.node_ids.includes(victim));
  }
  t.ok(await wasPlaced(s.sql, victim, held[0]!, PLACEMENT_HISTORY_MS), 'results it buffered while it ran the monitor still count');

  const second = nodes[1]!;
  const onSecond = (await s.sql`SELECT monitor_id FROM monitor_placements WHERE node_id = ${second} AND ended_at IS NULL`).map((r) => r.monitor_id as string);
  await changeNodeStatus(s.sql, second, ['online'], 'disabled');
  await s.job.runOnce();
  t.same((await s.sql`SELECT 1 FROM monitor_placements WHERE node_id = ${second} AND ended_at IS NULL`).length, 0, 'disabled: moved at once');
  await removeNode(s.sql, nodes[2]!);
  await s.job.runOnce();
  t.same((await s.sql`SELECT 1 FROM monitor_placements WHERE node_id = ${nodes[2]!} AND ended_at IS NULL`).length, 0, 'removed: moved at once');
  for (const id of onSecond) t.equal((await s.read(id)).node_ids.length, 3);
  const versions = await s.sql<{ node_id: string }[]>`SELECT node_id FROM node_assignments WHERE version > 0`;
  t.ok(versions.length >= 3, 'nodes that gained or lost monitors got new versions');
});

t.test('two instances work the queue together: every monitor placed once on node_count nodes', async (t) => {
  const s = await setup(t);
  const countries = ['DE', 'FR', 'JP', 'US', 'BR', 'IN', 'AU', 'CA'];
  for (let i = 0; i < 40; i++) await addNode(s.sql, { country: countries[i % countries.length], asn: 100 + i, capabilities: ALL });
  // 600 monitors created behind the API's back (as import or a later feature might): only the queue knows.
  await s.sql`
    INSERT INTO monitors (id, user_id, name, type, target, config, interval_s, node_count)
    SELECT 'm_' || lpad(g::text, 26, '0'), ${s.user.user_id}, 'bulk ' || g, 'http', 'https://198.18.1.10/', '{}', 60, 3
    FROM generate_series(1, 600) g`;
  await s.sql`UPDATE placement_queue SET due_at = now()`;
  const other = connect(s.deps.config.database_url!, 4);
  t.teardown(() => other.end({ timeout: 5 }));
  const second = startPlacementJob({ sql: other, log: createLogger('silent'), config: s.deps.config });
  t.teardown(() => second.stop());
  await Promise.all([s.job.runOnce(), second.runOnce(), s.job.runOnce(), second.runOnce()]);
  const rows = await s.sql<{ monitor_id: string; n: number; countries: number }[]>`
    SELECT p.monitor_id, count(*)::int AS n, count(DISTINCT n.country)::int AS countries
    FROM monitor_placements p JOIN nodes n ON n.id = p.node_id WHERE p.ended_at IS NULL GROUP BY p.monitor_id`;
  t.equal(rows.length, 600, 'every monitor placed');
  t.ok(rows.every((r) => r.n === 3 && r.countries === 3), 'each on 3 nodes in 3 countries');
  t.equal((await s.sql`SELECT 1 FROM placement_queue`).length, 0, 'queue empty');
  const loads = (await s.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM monitor_placements WHERE ended_at IS NULL GROUP BY node_id`).map((r) => r.n);
  t.ok(Math.max(...loads) - Math.min(...loads) <= 3, `load spread evenly (${Math.min(...loads)}..${Math.max(...loads)})`);
});

t.test('rebalance: a node in a new country takes a bounded share of monitors for a better spread', async (t) => {
  const s = await setup(t, { placement_rebalance_interval_ms: 1, placement_rebalance_moves_max: 5 });
  for (let i = 0; i < 4; i++) await addNode(s.sql, { country: i < 2 ? 'DE' : 'FR', asn: i + 1, capabilities: ALL });
  for (let i = 0; i < 20; i++) await s.create({ name: `r${i}`, node_count: 3 });
  const jp = await addNode(s.sql, { country: 'JP', asn: 50, capabilities: ALL });
  await s.job.runOnce();
  const onJp = async () => (await s.sql`SELECT 1 FROM monitor_placements WHERE node_id = ${jp} AND ended_at IS NULL`).length;
  t.equal(await onJp(), 5, 'one pass moves at most placement_rebalance_moves_max monitors');
  await s.job.runOnce();
  t.equal(await onJp(), 10);
  for (let i = 0; i < 5; i++) await s.job.runOnce();
  const n = await onJp();
  t.ok(n <= 20 && n >= 15, `a fair share, not everything (${n} of 20; cap 1.25 × mean)`);
  const spread = await s.sql<{ countries: number }[]>`
    SELECT count(DISTINCT n.country)::int AS countries FROM monitor_placements p JOIN nodes n ON n.id = p.node_id
    WHERE p.ended_at IS NULL GROUP BY p.monitor_id`;
  t.ok(spread.filter((r) => r.countries === 3).length >= 15, 'most monitors now in 3 countries');
});
