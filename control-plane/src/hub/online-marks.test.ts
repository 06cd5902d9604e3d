import t from 'tap';
import { newId } from '@vantage/shared-protocol';
import { testDatabase } from '../test-support/db.js';
import { onlineMarker } from './online-marks.js';

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
