import t from 'tap';
import { newId } from '@vantage/shared-protocol';
import { testDatabase } from '../test-support/db.js';
import { offlineMarker, onlineMarker } from './online-marks.js';

t.test('hellos at once share one statement; when it fails, each is written alone and only the bad one fails', async (t) => {
  const { sql } = await testDatabase(t);
  const ids = [newId('node'), newId('node'), newId('node')];
  for (const id of ids) await sql`INSERT INTO nodes (id, name) VALUES (${id}, ${id})`;
  const warnings: unknown[] = [];
  const mark = onlineMarker(sql, { warn: (o: unknown) => void warnings.push(o) });
  const hello = (id: string, agent_version = '1.0.0') => ({ id, instance_id: 'here', ip_address: null, agent_version, capabilities: ['ping'] });

  const rows = await Promise.all(ids.map((id) => mark(hello(id))));
  t.same(rows.map((r) => r?.status), ['online', 'online', 'online']);
  t.same(warnings, [], 'one statement, no fallback');

  await sql`UPDATE nodes SET status = 'offline', instance_id = NULL`;
  // A NUL cannot be stored in text: the batch's statement fails as a whole, one node's own write too.
  const settled = await Promise.allSettled([mark(hello(ids[0]!)), mark(hello(ids[1]!, 'bad\u0000version')), mark(hello(ids[2]!))]);
  t.match(settled.map((s) => s.status), ['fulfilled', 'rejected', 'fulfilled'], 'only the bad hello fails');
  t.equal(warnings.length, 1, 'the failed batch is logged once');
  const stored = await sql<{ id: string; status: string }[]>`SELECT id, status FROM nodes ORDER BY id`;
  t.same(new Map(stored.map((r) => [r.id, r.status])), new Map([[ids[0]!, 'online'], [ids[1]!, 'offline'], [ids[2]!, 'online']]));
});

t.test('closed links at once are marked offline together, skipping nodes held again and nodes of other instances', async (t) => {
  const { sql } = await testDatabase(t);
  const ids = Array.from({ length: 5 }, () => newId('node'));
  for (const id of ids) await sql`INSERT INTO nodes (id, name, status, instance_id) VALUES (${id}, ${id}, 'online', 'here')`;
  // The last node's row is held by another instance now (it reconnected there).
  await sql`UPDATE nodes SET instance_id = 'elsewhere' WHERE id = ${ids[4]!}`;
  const held = new Set([ids[3]!]); // reconnected here before the mark was written
  const warnings: unknown[] = [];
  const mark = offlineMarker(sql, 'here', (id) => held.has(id), { warn: (o: unknown) => void warnings.push(o) });
  await Promise.all(ids.map((id) => mark(id)));
  const stored = await sql<{ id: string; status: string; instance_id: string | null; last_seen_at: Date | null }[]>`SELECT id, status, instance_id, last_seen_at FROM nodes`;
  const by = new Map(stored.map((r) => [r.id, r]));
  for (const id of ids.slice(0, 3)) {
    t.equal(by.get(id)!.status, 'offline');
    t.equal(by.get(id)!.instance_id, null);
    t.ok(by.get(id)!.last_seen_at, 'last seen when it went offline');
  }
  t.equal(by.get(ids[3]!)!.status, 'online', 'a node held again keeps its new link\'s state');
  t.same([by.get(ids[4]!)!.status, by.get(ids[4]!)!.instance_id], ['online', 'elsewhere'], 'another instance\'s node is untouched');
  t.same(warnings, []);
});
