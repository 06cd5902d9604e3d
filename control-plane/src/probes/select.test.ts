import t from 'tap';
import { nodeSelectionSchema, type NodeSelection } from '@vantage/shared-protocol';
import type { Sql } from '../db/sql.js';
import { testDatabase } from '../test-support/db.js';
import { newId } from '@vantage/shared-protocol';
import { NO_LIMITS, selectNodes, selectNodesInserting } from './select.js';
import type { FirstRoundTasks } from './node-selection.db.js';
import { addNode } from './test-support.js';

// Automatic node selection against the real database (migration 0019's pick index): the spread
// rules of docs/api/probes.md, every filter, and that a small pick reads a handful of node rows
// however many nodes are online.

const sel = (s: Partial<NodeSelection> = {}) => ({ nodes: nodeSelectionSchema.parse(s) });

async function fleet(sql: Sql): Promise<void> {
  const plan: Array<[string | null, number, number]> = [
    ['DE', 64500, 3], ['DE', 64501, 2], ['US', 64510, 4], ['JP', 64520, 1], ['JP', 64521, 1], ['FR', 64530, 2], [null, 64540, 2],
  ];
  for (const [country, asn, n] of plan) for (let i = 0; i < n; i++) await addNode(sql, { country, asn, capabilities: ['ping', 'tcp'] });
}

t.test('automatic picks spread across countries, then ASNs', async (t) => {
  const { sql } = await testDatabase(t);
  await fleet(sql);
  for (let i = 0; i < 20; i++) {
    const three = await selectNodes(sql, 'ping', {}, NO_LIMITS);
    t.equal(three.length, 3);
    t.equal(new Set(three.map((n) => n.country)).size, 3, 'three picks: three countries');
    const five = await selectNodes(sql, 'ping', sel({ count: 5 }), NO_LIMITS);
    t.equal(new Set(five.map((n) => n.country ?? '?')).size, 5, 'five picks: every country, unknown included');
    const seven = await selectNodes(sql, 'ping', sel({ count: 7 }), NO_LIMITS);
    t.equal(new Set(seven.map((n) => n.id)).size, 7, 'no node twice');
    const de = seven.filter((n) => n.country === 'DE');
    const jp = seven.filter((n) => n.country === 'JP');
    if (de.length === 2) t.not(de[0]!.asn, de[1]!.asn, "DE's second node comes from its other ASN");
    if (jp.length === 2) t.not(jp[0]!.asn, jp[1]!.asn, "JP's second node comes from its other ASN");
    t.equal(new Set(seven.slice(0, 5).map((n) => n.country ?? '?')).size, 5, 'ordered round-robin: the first five are five countries');
  }
  const all = await selectNodes(sql, 'ping', sel({ count: 100 }), NO_LIMITS);
  t.equal(all.length, 15, 'fewer candidates than count: all of them');
  t.equal(new Set(all.map((n) => n.id)).size, 15);
});

t.test('a pick larger than the index path serves still spreads, and a country running short passes its share on', async (t) => {
  const { sql } = await testDatabase(t);
  await fleet(sql);
  await addNode(sql, { country: 'BR', asn: 64550 });
  // 6 countries: 12 picks are two rounds; BR (1 node) runs short after one.
  const twelve = await selectNodes(sql, 'ping', sel({ count: 12 }), NO_LIMITS);
  t.equal(twelve.length, 12);
  t.equal(new Set(twelve.map((n) => n.id)).size, 12);
  t.equal(new Set(twelve.map((n) => n.country ?? '?')).size, 6);
  // One country: 9 picks are 9 rounds, past the index path.
  const us = await selectNodes(sql, 'ping', sel({ countries: ['us'], count: 9 }), NO_LIMITS);
  t.same(us.map((n) => n.country), ['US', 'US', 'US', 'US']);
});

t.test('filters and candidates: every filter applies, offline, removed and unable nodes never picked', async (t) => {
  const { sql } = await testDatabase(t);
  const tagged = await addNode(sql, { country: 'DE', asn: 64500, region: 'DE-BE', provider: 'Hetzner', tags: ['edge', 'v6'] });
  const plain = await addNode(sql, { country: 'DE', asn: 64501, region: 'DE-BY' });
  const us = await addNode(sql, { country: 'US', asn: 64510, provider: 'aws' });
  await addNode(sql, { country: 'FR', status: 'offline' });
  await addNode(sql, { country: 'GB', status: 'disabled' });
  const removed = await addNode(sql, { country: 'SG' });
  await sql`UPDATE nodes SET removed_at = now() WHERE id = ${removed}`;
  const dnsOnly = await addNode(sql, { country: 'JP', capabilities: ['dns'] });
  const owner = 'u_01jd3k6w9z4q8r2t7v5x1y3b6c';
  const mine = await addNode(sql, { country: 'BR', owner_user_id: owner, allow_private: true });

  const ids = async (type: 'ping' | 'dns', s: Partial<NodeSelection>, private_user: string | null = null) => {
    const private_owner = private_user === null ? null : { user_id: private_user, team_id: null };
    return (await selectNodes(sql, type, sel({ count: 10, ...s }), { requester: private_owner, private_owner, secrets: null }).catch(() => [])).map((n) => n.id).sort();
  };
  t.same(await ids('ping', {}), [tagged, plain, us, mine].sort(), 'online nodes able to ping');
  t.same(await ids('dns', {}), [tagged, plain, us, dnsOnly, mine].sort(), 'the dns-only node runs dns');
  t.same(await ids('ping', { countries: ['de'] }), [tagged, plain].sort());
  t.same(await ids('ping', { regions: ['de-be'] }), [tagged]);
  t.same(await ids('ping', { asns: [64501, 64510] }), [plain, us].sort());
  t.same(await ids('ping', { providers: ['HETZNER', 'aws'] }), [tagged, us].sort());
  t.same(await ids('ping', { tags: ['edge', 'v6'] }), [tagged]);
  t.same(await ids('ping', { tags: ['edge', 'other'] }), []);
  t.same(await ids('ping', {}, owner), [mine], 'private targets: only the owner’s nodes that allow them');
  await t.rejects(selectNodes(sql, 'ping', sel({ countries: ['cn'] }), NO_LIMITS), { code: 'PROBE_TOO_FEW_NODES' });
});

t.test('a 3-node pick reads a few node rows, not every online node', async (t) => {
  const { sql } = await testDatabase(t);
  const countries = ['DE', 'US', 'JP', 'FR', 'GB', 'SG', 'BR', 'IN', 'CN'];
  await sql`
    INSERT INTO nodes (id, name, status, country, asn)
    SELECT 'n_' || lpad(i::text, 26, '0'), 'n' || i, 'online', (${countries}::text[])[1 + i % 9], 64500 + i % 40
    FROM generate_series(1, 3000) AS i`;
  await sql`ANALYZE nodes`;
  // Statistics of the transaction so far: rows the selection's queries read from `nodes`.
  const read = async (tx: Sql) => {
    const [row] = await tx<{ n: number }[]>`
      SELECT (coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0))::int AS n FROM pg_stat_xact_user_tables WHERE relname = 'nodes'`;
    return row!.n;
  };
  await sql.begin(async (tx) => {
    const before = await read(tx as unknown as Sql);
    const picked = await selectNodes(tx as unknown as Sql, 'ping', {}, NO_LIMITS);
    t.equal(picked.length, 3);
    const rows = (await read(tx as unknown as Sql)) - before;
    // A country list (one row per country) and a window of pick keys per pick, never the 3000.
    t.ok(rows < 300, `rows read for 3 picks among 3000 online nodes: ${rows}`);
  });
});

t.test('a pick answered by its first round inserts the probe\'s tasks in the same statement; one that is not leaves them to the caller', async (t) => {
  const { sql } = await testDatabase(t);
  const owner = newId('user');
  await addNode(sql, { country: 'DE', asn: 64500, capabilities: ['tcp'], owner_user_id: owner, allow_private: true });
  await addNode(sql, { country: 'US', asn: 64510, capabilities: ['tcp'] });
  await addNode(sql, { country: 'JP', asn: 64520, capabilities: ['tcp'], owner_user_id: owner });
  const template = (count: number): FirstRoundTasks => ({
    ids: Array.from({ length: count }, () => newId('probe_task')), probe_type: 'tcp', target: '198.18.0.10:443',
    check: { type: 'tcp', target: '198.18.0.10:443', params: {} }, timeout_ms: 2000, grace_ms: 5000, requester_user_id: owner, private_owner: { user_id: owner, team_id: null },
  });
  const three = await selectNodesInserting(sql, 'tcp', {}, NO_LIMITS, Math.random, template);
  t.ok(three.inserted, 'three nodes in three countries: inserted with the pick');
  const made = three.inserted;
  const rows = await sql<Array<{ id: string; group_id: string; ordinal: number; node_id: string; status: string; allow_private: boolean; requester_user_id: string; check: unknown; ahead_s: number }>>`
    SELECT id, group_id, ordinal, node_id, status, allow_private, requester_user_id, "check", extract(epoch FROM deadline_at - now())::float8 AS ahead_s
    FROM probe_tasks ORDER BY ordinal`;
  t.same(rows.map((r) => r.id), made!.ids, 'task i has id i');
  t.same(rows.map((r) => r.node_id), three.nodes.map((n) => n.id), 'task i runs on node i');
  t.ok(rows.every((r) => r.group_id === made!.ids[0] && r.status === 'queued' && r.requester_user_id === owner));
  t.same(rows.map((r) => r.allow_private), three.nodes.map((n) => n.owner_user_id === owner && n.allow_private), 'private only on the requester\'s node that allows it');
  t.ok(rows.some((r) => r.allow_private), 'the DE node qualifies');
  t.same(rows[0]!.check, made!.check);
  t.ok(rows.every((r) => r.ahead_s > 5 && r.ahead_s <= 7), 'deadline = now + timeout + grace');

  const before = (await sql`SELECT count(*)::int AS n FROM probe_tasks`)[0]!.n;
  const five = await selectNodesInserting(sql, 'tcp', sel({ count: 5 }), NO_LIMITS, Math.random, template);
  t.notOk(five.inserted, 'five picks among three countries take a second round: not inserted');
  t.equal(five.nodes.length, 3);
  const explicit = await selectNodesInserting(sql, 'tcp', { node_ids: [three.nodes[0]!.id] }, NO_LIMITS, Math.random, template);
  t.notOk(explicit.inserted, 'explicit nodes are never inserted here');
  t.equal((await sql`SELECT count(*)::int AS n FROM probe_tasks`)[0]!.n, before, 'nothing inserted by either');
});

t.test('secret headers: only the requester\'s own nodes and platform nodes, whatever the size of the pick', async (t) => {
  const { sql } = await testDatabase(t);
  const me = newId('user');
  const others: string[] = [];
  for (const country of ['DE', 'DE', 'FR', 'US', 'JP', 'BR']) others.push(await addNode(sql, { country, capabilities: ['tcp'], owner_user_id: newId('user') }));
  others.push(await addNode(sql, { country: 'GB', capabilities: ['tcp'] })); // no owner, not a platform node
  const mine = await addNode(sql, { country: 'DE', capabilities: ['tcp'], owner_user_id: me });
  const platform = await addNode(sql, { country: 'US', capabilities: ['tcp'], owner_user_id: newId('user') });
  await sql`UPDATE nodes SET platform = true WHERE id = ${platform}`;
  const secrets = (user: string | null) => {
    const requester = user === null ? null : { user_id: user, team_id: null };
    return { requester, private_owner: null, secrets: { headers: ['Authorization'], requester } };
  };
  const ids = async (count: number, requester: string | null) => (await selectNodes(sql, 'tcp', sel({ count }), secrets(requester))).map((n) => n.id).sort();
  for (const count of [2, 3, 40]) {
    t.same(await ids(count, me), [mine, platform].sort(), `${count} asked (${count > 8 ? 'every candidate read' : 'indexed pick'}): own and platform nodes only`);
    t.same(await ids(count, null), [platform], `${count} asked, anonymous: the platform node only`);
  }
  t.equal((await selectNodes(sql, 'tcp', sel({ count: 40 }), NO_LIMITS)).length, 9, 'without secrets: every node');

  const template = (count: number): FirstRoundTasks => ({
    ids: Array.from({ length: count }, () => newId('probe_task')), probe_type: 'tcp', target: '198.18.0.10:443',
    check: { type: 'tcp', target: '198.18.0.10:443', params: {} }, timeout_ms: 2000, grace_ms: 5000, requester_user_id: me, private_owner: null,
  });
  const picked = await selectNodesInserting(sql, 'tcp', sel({ count: 2 }), secrets(me), Math.random, template);
  t.equal(picked.inserted, null, 'a pick for secret headers never inserts tasks itself');
  t.equal((await sql`SELECT count(*)::int AS n FROM probe_tasks`)[0]!.n, 0);

  await t.rejects(selectNodes(sql, 'tcp', sel({ count: 3, countries: ['jp'] }), secrets(me)), { code: 'PROBE_TOO_FEW_NODES', details: { headers: ['Authorization'] } }, 'none trusted among the candidates: 422');
  await t.rejects(selectNodes(sql, 'tcp', { node_ids: [mine, others[0]!] }, secrets(me)), { code: 'FORBIDDEN', details: { node_ids: [others[0]], headers: ['Authorization'] } }, 'an explicit node of someone else: 403');
  t.same((await selectNodes(sql, 'tcp', { node_ids: [mine, platform] }, secrets(me))).map((n) => n.id), [mine, platform], 'explicit own and platform nodes');
  await t.rejects(selectNodes(sql, 'tcp', { node_ids: [mine] }, secrets(null)), { code: 'FORBIDDEN' }, 'anonymous: no owned node, only platform nodes');
});

t.test('a team\'s node serves its members\' probes, not others\'; it holds no member\'s personal secrets', async (t) => {
  const { sql } = await testDatabase(t);
  const enroller = newId('user');
  const member = newId('user');
  const team = newId('team');
  await sql`INSERT INTO teams (id, name) VALUES (${team}, 'probe team')`;
  const teamNode = await addNode(sql, { country: 'DE', capabilities: ['tcp'], owner_user_id: enroller, shared: false });
  await sql`UPDATE nodes SET team_id = ${team} WHERE id = ${teamNode}`;
  const asMember = { user_id: member, team_id: null, member_of: [team] };
  const outsider = { user_id: newId('user'), team_id: null };
  const limits = (requester: { user_id: string; team_id: null; member_of?: string[] }, secrets = false) =>
    ({ requester, private_owner: null, secrets: secrets ? { headers: ['Authorization'], requester: { user_id: requester.user_id, team_id: null } } : null });
  t.same((await selectNodes(sql, 'tcp', sel({ count: 3 }), limits(asMember))).map((n) => n.id), [teamNode], 'automatic pick: a member gets the team\'s node');
  t.same((await selectNodes(sql, 'tcp', { node_ids: [teamNode] }, limits(asMember))).map((n) => n.id), [teamNode], 'named: too');
  await t.rejects(selectNodes(sql, 'tcp', { node_ids: [teamNode] }, limits(outsider)), { code: 'FORBIDDEN', details: { node_ids: [teamNode] } }, 'an outsider: 403');
  await t.rejects(selectNodes(sql, 'tcp', sel({ count: 3 }), limits({ user_id: enroller, team_id: null })), { code: 'PROBE_TOO_FEW_NODES' }, 'its enroller, not acting as a member: not his personal node');
  await t.rejects(selectNodes(sql, 'tcp', { node_ids: [teamNode] }, limits(asMember, true)), { code: 'FORBIDDEN', details: { headers: ['Authorization'] } }, 'a member\'s personal secrets do not go to the team\'s node');
  const forTeam = { requester: { user_id: member, team_id: team }, private_owner: null, secrets: { headers: ['Authorization'], requester: { user_id: member, team_id: team } } };
  t.same((await selectNodes(sql, 'tcp', sel({ count: 3 }), forTeam)).map((n) => n.id), [teamNode], 'a team monitor\'s run: the team\'s node holds the team\'s secrets');
});
