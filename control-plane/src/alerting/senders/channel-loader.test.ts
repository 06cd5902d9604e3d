import t from 'tap';
import { seedUser } from '../../checks/test-support.js';
import { testDatabase } from '../../test-support/db.js';
import { channel } from '../engine-fixtures.js';
import { createChannelLoader } from './channel-loader.js';

/* The senders' channel loader on a real database: reads started together, deleted channels, no cache. */

t.test('loads started together get their own channels; a missing one is null', async (t) => {
  const { sql } = await testDatabase(t);
  const user_id = await seedUser(sql);
  const a = await channel(sql, user_id, 'a');
  const b = await channel(sql, user_id, 'b');
  const loader = createChannelLoader(sql);
  const got = await Promise.all([loader.load(a), loader.load(b), loader.load(a), loader.load('ach_missing')]);
  t.same(got.map((c) => c?.name ?? null), ['a', 'b', 'a', null]);
  t.equal(got[0]!.id, a);
});

t.test('nothing is cached past a read: a changed or deleted channel is read as it is now', async (t) => {
  const { sql } = await testDatabase(t);
  const user_id = await seedUser(sql);
  const a = await channel(sql, user_id, 'a');
  const loader = createChannelLoader(sql);
  t.same((await loader.load(a))!.config, { url: 'http://127.0.0.1:9/hook' });
  await sql`UPDATE alert_channels SET config = ${sql.json({ url: 'http://127.0.0.1:10/hook' })} WHERE id = ${a}`;
  t.same((await loader.load(a))!.config, { url: 'http://127.0.0.1:10/hook' }, 'the new config');
  await sql`DELETE FROM alert_channels WHERE id = ${a}`;
  t.equal(await loader.load(a), null, 'deleted');
});

t.test('a failed read rejects every load of its batch', async (t) => {
  const { sql } = await testDatabase(t);
  const loader = createChannelLoader(sql);
  await sql.end();
  await t.rejects(Promise.all([loader.load('ach_a'), loader.load('ach_b')]));
});
