import t from 'tap';
import { newId } from '@vantage/shared-protocol';
import { testDatabase } from '../test-support/db.js';
import { releaseDeadInstances } from './instances.db.js';

t.test('releaseDeadInstances: the nodes of stale and missing leases go offline, a live holder keeps its own', async (t) => {
  const { sql } = await testDatabase(t);
  await sql`INSERT INTO hub_instances (instance_id, lease_at) VALUES ('live', now()), ('stale', now() - interval '10 minutes')`;
  const node = async (instance_id: string | null, status: string) => {
    const id = newId('node');
    await sql`INSERT INTO nodes (id, name, status, instance_id, last_seen_at) VALUES (${id}, ${id}, ${status}, ${instance_id}, now() - interval '1 day')`;
    return id;
  };
  const live = [await node('live', 'online'), await node('live', 'online')];
  const stale = [await node('stale', 'online'), await node('stale', 'online')];
  const leaseless = await node('never-leased', 'online');
  const offline = await node('stale', 'offline');
  const disabled = await node(null, 'disabled');

  const released = await releaseDeadInstances(sql, 60_000);
  t.same([...released].sort(), [...stale, leaseless].sort(), 'the stale lease\'s online nodes and the lease-less holder\'s');
  const rows = new Map((await sql<{ id: string; status: string; instance_id: string | null; last_seen_at: Date }[]>`
    SELECT id, status, instance_id, last_seen_at FROM nodes`).map((r) => [r.id, r]));
  for (const id of live) t.match(rows.get(id), { status: 'online', instance_id: 'live' }, 'a live holder keeps its nodes');
  for (const id of stale) {
    t.match(rows.get(id), { status: 'offline', instance_id: null });
    t.ok(Math.abs(rows.get(id)!.last_seen_at.getTime() - (Date.now() - 10 * 60_000)) < 60_000, 'last seen = the stale lease');
  }
  t.match(rows.get(leaseless), { status: 'offline', instance_id: null });
  t.match(rows.get(offline), { status: 'offline', instance_id: 'stale' }, 'an offline node is left alone');
  t.match(rows.get(disabled), { status: 'disabled' });
  t.same((await sql`SELECT instance_id FROM hub_instances ORDER BY instance_id`).map((r) => r.instance_id), ['live'], 'the stale lease is deleted');
  t.same(await releaseDeadInstances(sql, 60_000), [], 'a second run finds nothing');
});
