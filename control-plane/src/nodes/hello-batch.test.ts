import t from 'tap';
import { newId } from '@vantage/shared-protocol';
import { testDatabase } from '../test-support/db.js';
import { unackedTasksOf } from '../probes/tasks.db.js';
import { findNodesByCredential, markNodesOffline, markNodesOnline } from './nodes.db.js';
import { recordClockOffsets, recordOutboxStatsMany } from './node-reports.db.js';

// The statements a burst of hellos shares (upgrade.ts, online-marks.ts, probes/sink.ts): each
// must answer for every node of the burst what the one-node statement answered for it.

async function node(sql: Awaited<ReturnType<typeof testDatabase>>['sql'], o: { status?: string; instance_id?: string | null; removed?: boolean; credential_hash?: string } = {}) {
  const id = newId('node');
  await sql`INSERT INTO nodes (id, name, status, instance_id, credential_hash, removed_at)
    VALUES (${id}, ${id}, ${o.status ?? 'offline'}, ${o.instance_id ?? null}, ${o.credential_hash ?? null}, ${o.removed ? new Date() : null})`;
  return id;
}

t.test('findNodesByCredential: every live holder of the hashes by hash; removed nodes and unknown hashes absent', async (t) => {
  const { sql } = await testDatabase(t);
  const a = await node(sql, { credential_hash: 'hash-a' });
  const b = await node(sql, { credential_hash: 'hash-b', status: 'disabled' });
  await node(sql, { credential_hash: 'hash-c', removed: true });
  const found = await findNodesByCredential(sql, ['hash-a', 'hash-b', 'hash-c', 'hash-x']);
  t.same([...found.keys()].sort(), ['hash-a', 'hash-b']);
  t.match(found.get('hash-a'), { id: a, status: 'offline' });
  t.match(found.get('hash-b'), { id: b, status: 'disabled' }, 'a disabled node is found (the upgrade refuses it by its status)');
  t.notOk('credential_hash' in found.get('hash-a')!, 'the row carries no credential hash');
  t.same(Object.keys(found.get('hash-a')!).sort(), ['id', 'instance_id', 'name', 'status'], 'only what the hub needs while a node connects');
  t.same((await findNodesByCredential(sql, [])).size, 0);
});

t.test('markNodesOnline: online on the instance with each hello\'s own fields; disabled, banned and removed nodes untouched', async (t) => {
  const { sql } = await testDatabase(t);
  const offline = await node(sql);
  const elsewhere = await node(sql, { status: 'online', instance_id: 'other' });
  const disabled = await node(sql, { status: 'disabled' });
  const banned = await node(sql, { status: 'banned' });
  const removed = await node(sql, { removed: true });
  const hello = (id: string, i: number) => ({ id, instance_id: 'here', ip_address: i === 0 ? null : `192.0.2.${i}`, agent_version: `1.${i}.0`, capabilities: i === 0 ? [] : ['http', 'ping'].slice(0, i) });
  const rows = await markNodesOnline(sql, [offline, elsewhere, disabled, banned, removed].map(hello));
  t.same([...rows.keys()].sort(), [offline, elsewhere].sort(), 'only nodes that may come online');
  t.same(rows.get(offline), { id: offline, name: offline, status: 'online', instance_id: 'here' }, 'the row the hub needs, nothing more');
  t.match(rows.get(elsewhere), { status: 'online', instance_id: 'here' });
  const stored = new Map((await sql<{ id: string; status: string; instance_id: string | null; confirmed: boolean; ip_address: string | null; agent_version: string | null; capabilities: string[] }[]>`
    SELECT id, status, instance_id, credential_confirmed_at IS NOT NULL AS confirmed, ip_address, agent_version, capabilities FROM nodes`).map((r) => [r.id, r]));
  t.match(stored.get(offline), { status: 'online', instance_id: 'here', confirmed: true, ip_address: null, agent_version: '1.0.0', capabilities: [] }, 'a hello confirms the credential');
  t.match(stored.get(elsewhere), { ip_address: '192.0.2.1', agent_version: '1.1.0', capabilities: ['http'] }, 'each hello\'s own fields');
  t.match(stored.get(disabled), { status: 'disabled', instance_id: null, confirmed: false });
  t.match(stored.get(banned), { status: 'banned', instance_id: null });
  t.match(stored.get(removed), { status: 'offline', instance_id: null });
  t.same((await markNodesOnline(sql, [])).size, 0);
});

t.test('unackedTasksOf: each node\'s queued tasks whose deadline is ahead, oldest first per node', async (t) => {
  const { sql } = await testDatabase(t);
  const a = await node(sql);
  const b = await node(sql);
  const idle = await node(sql);
  const group = newId('probe_task');
  let ordinal = 0;
  const task = async (node_id: string, status: string, o: { age_s?: number; deadline_s?: number } = {}) => {
    const id = newId('probe_task');
    await sql`INSERT INTO probe_tasks (id, group_id, ordinal, node_id, probe_type, target, "check", timeout_ms, status, created_at, deadline_at)
      VALUES (${id}, ${group}, ${ordinal++}, ${node_id}, 'ping', 'example.test', '{}', 1000, ${status},
        now() - make_interval(secs => ${o.age_s ?? 0}), now() + make_interval(secs => ${o.deadline_s ?? 60}))`;
    return id;
  };
  const a_new = await task(a, 'queued', { age_s: 1 });
  const a_old = await task(a, 'queued', { age_s: 5 });
  await task(a, 'running');
  await task(a, 'queued', { deadline_s: -1 });
  const b_one = await task(b, 'queued');
  await task(b, 'completed');
  const rows = await unackedTasksOf(sql, [a, b, idle]);
  t.same(rows.filter((r) => r.node_id === a).map((r) => r.id), [a_old, a_new], 'queued and not overdue, oldest first');
  t.same(rows.filter((r) => r.node_id === b).map((r) => r.id), [b_one]);
  t.same(rows.filter((r) => r.node_id === idle), []);
  t.same(await unackedTasksOf(sql, []), []);
});

t.test('batched node writes do not wait for inserts that reference a node (no deadlock with a probe group\'s tasks)', async (t) => {
  const { sql } = await testDatabase(t);
  const a = await node(sql, { status: 'online', instance_id: 'here' });
  const b = await node(sql, { status: 'online', instance_id: 'here' });
  // What an insert of a task referencing b holds until its transaction ends (the foreign key's
  // check): a key-share lock on b's row.
  const holder = await sql.reserve();
  t.teardown(() => holder.release());
  await holder`BEGIN`;
  await holder`SELECT 1 FROM nodes WHERE id = ${b} FOR KEY SHARE`;
  const reports = [a, b].map((id) => ({ id, pending: 3, dropped_total: 1, oldest_pending_at: null }));
  const bounded = <T>(p: Promise<T>, what: string) => Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} waited for the key-share lock`)), 20_000))]);
  await bounded(recordOutboxStatsMany(sql, reports), 'outbox stats');
  await bounded(recordClockOffsets(sql, [{ id: a, offset_ms: 5 }, { id: b, offset_ms: -5 }]), 'clock offsets');
  await bounded(markNodesOnline(sql, [a, b].map((id) => ({ id, instance_id: 'here', ip_address: null, agent_version: '1.0.0', capabilities: [] }))), 'online marks');
  await bounded(markNodesOffline(sql, [a, b], 'here'), 'offline marks');
  await holder`COMMIT`;
  const rows = await sql<{ id: string; outbox_pending: number; clock_offset_ms: number; status: string }[]>`
    SELECT id, outbox_pending, clock_offset_ms, status FROM nodes WHERE id = ANY(${[a, b]}) ORDER BY id`;
  t.same(rows.map((r) => [r.outbox_pending, r.status]), [[3, 'offline'], [3, 'offline']], 'every write landed while the key-share lock was held');
  t.same(rows.find((r) => r.id === b)!.clock_offset_ms, -5);
});
