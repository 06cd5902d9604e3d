import t from 'tap';
import { newId } from '@vantage/shared-protocol';
import { createLogger } from '../log.js';
import { testDatabase } from '../test-support/db.js';
import { startRelay } from './relay.js';
import { waitFor } from './test-harness.js';

const CHANNEL = 'relay_test';

t.test('drops asked for together go out as few notifications of many nodes, each under the payload limit', async (t) => {
  const { sql } = await testDatabase(t);
  const log = createLogger('silent');
  const dropped = { a: [] as string[], b: [] as string[] };
  const payloads: string[] = [];
  const watcher = await sql.listen(CHANNEL, (p) => void payloads.push(p));
  t.teardown(() => watcher.unlisten());
  const relays = await Promise.all((['a', 'b'] as const).map((instance_id) => startRelay({
    sql, log, channel: CHANNEL, instance_id,
    deliver: () => {},
    dropLocal: (node_id, close) => void dropped[instance_id].push(`${close}:${node_id}`),
  })));
  t.teardown(() => Promise.all(relays.map((r) => r.stop())));
  const [a] = relays;

  const few = [newId('node'), newId('node'), newId('node')];
  await Promise.all(few.map((id) => a!.drop(id, 'replaced', 'a')));
  await waitFor(async () => dropped.b.length === 3);
  t.same(dropped.b, few.map((id) => `replaced:${id}`), 'the other instance closes each');
  t.same(dropped.a, [], 'the asking instance is excepted');
  t.equal(payloads.length, 1, 'one notification');

  const many = Array.from({ length: 1200 }, () => newId('node'));
  payloads.length = 0;
  dropped.b.length = 0;
  await Promise.all([...many.map((id) => a!.drop(id, 'replaced', 'a')), a!.drop(few[0]!, 'node_disabled')]);
  await waitFor(async () => dropped.b.length === 1201 && dropped.a.length === 1);
  t.same(dropped.b.filter((d) => d.startsWith('replaced:')), many.map((id) => `replaced:${id}`), 'all, in order');
  t.same(dropped.a, [`node_disabled:${few[0]}`], 'a drop for every instance reaches the asking one too');
  t.ok(payloads.length > 1 && payloads.length < 20, `${payloads.length} notifications for 1201 drops`);
  t.ok(payloads.every((p) => Buffer.byteLength(p) < 8000), 'each under the NOTIFY limit');

  // An instance of the version before batching names one node per event.
  dropped.b.length = 0;
  await sql.notify(CHANNEL, JSON.stringify({ k: 'drop', node_id: few[1], close: 'node_removed', except: 'a' }));
  await waitFor(async () => dropped.b.length === 1);
  t.same(dropped.b, [`node_removed:${few[1]}`]);
});
