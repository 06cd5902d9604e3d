import t from 'tap';
import { newId } from '@vantage/shared-protocol';
import { addNode } from '../probes/test-support.js';
import { testDatabase } from '../test-support/db.js';
import { applyPlatformNodeOwners } from './platform-nodes.db.js';

/*
 * VANTAGE_PLATFORM_NODE_OWNERS applied at start (docs/api/nodes.md "Platform nodes"): nodes of
 * listed accounts with a verified address are marked, every other node is not, and the monitors
 * placed on a node whose mark changed are queued for placement (0037's trigger).
 */

t.test('the list marks and unmarks nodes; only verified addresses count; their monitors are placed again', async (t) => {
  const { sql } = await testDatabase(t);
  const user = async (email: string, verified: boolean) => {
    const id = newId('user');
    await sql`INSERT INTO users (id, email, email_verified, password_hash) VALUES (${id}, ${email}, ${verified}, 'x')`;
    return id;
  };
  const ops = await user('Ops@Example.test', true);
  const squatter = await user('fleet@example.test', false);
  const other = await user('someone@example.test', true);
  const opsNode = await addNode(sql, { country: 'DE', owner_user_id: ops });
  const squatterNode = await addNode(sql, { country: 'FR', owner_user_id: squatter });
  const otherNode = await addNode(sql, { country: 'JP', owner_user_id: other });
  const marks = async () => Object.fromEntries((await sql<{ id: string; platform: boolean }[]>`SELECT id, platform FROM nodes`).map((r) => [r.id, r.platform]));

  t.same(await applyPlatformNodeOwners(sql, ['ops@example.test', 'fleet@example.test']), { marked: 1, unmarked: 0 });
  t.same(await marks(), { [opsNode]: true, [squatterNode]: false, [otherNode]: false }, 'the verified account\'s node only (the address matched in any case)');
  t.same(await applyPlatformNodeOwners(sql, ['ops@example.test']), { marked: 0, unmarked: 0 }, 'applied again: nothing changes');

  // A monitor of another account placed on the platform node: the node loses its mark, the monitor is placed again.
  const monitor = newId('monitor');
  await sql`INSERT INTO monitors (id, user_id, name, type, target, config, interval_s, node_count) VALUES (${monitor}, ${other}, 'm', 'https', 'https://198.18.1.10/', '{}', 60, 1)`;
  await sql`DELETE FROM placement_queue`;
  await sql`INSERT INTO monitor_placements (monitor_id, node_id, revision) VALUES (${monitor}, ${opsNode}, 1)`;
  t.same(await applyPlatformNodeOwners(sql, []), { marked: 0, unmarked: 1 }, 'taken off the list');
  t.same(await marks(), { [opsNode]: false, [squatterNode]: false, [otherNode]: false });
  t.same((await sql`SELECT monitor_id FROM placement_queue`).map((r) => r.monitor_id), [monitor], 'its monitors are queued for placement');
});
