import t from 'tap';
import { newId } from '@vantage/shared-protocol';
import { createLogger } from '../log.js';
import { testDatabase } from '../test-support/db.js';
import { createAckWriter } from './task-acks.js';
import { insertTasks } from './tasks.db.js';
import { addNode } from './test-support.js';

// A node's task.ack marks its task running, late and in batches: a task whose result was handled
// first needs no write at all, and the others are written together.
t.test('acks: written after the delay in one go, skipped once the result is in, never for another node', async (t) => {
  const { sql } = await testDatabase(t);
  const a = await addNode(sql, { country: 'DE' });
  const b = await addNode(sql, { country: 'US' });
  const check = { type: 'tcp', target: '1.1.1.1:443', params: { timeout_ms: 5000, ip_version: 'auto' } };
  const ids = Array.from({ length: 4 }, () => newId('probe_task'));
  await insertTasks(sql, ids.map((id, ordinal) => ({
    id, group_id: ids[0]!, ordinal, node_id: ordinal % 2 ? b : a, probe_type: 'tcp', target: check.target, check,
    timeout_ms: 5000, grace_ms: 5000, requester_user_id: null, allow_private: false,
  })) as never);
  const status = async () => new Map((await sql<{ id: string; status: string }[]>`SELECT id, status FROM probe_tasks`).map((r) => [r.id, r.status]));

  const acks = createAckWriter(sql, createLogger('silent'), 60_000);
  acks.accepted(a, ids[0]!);
  acks.accepted(b, ids[1]!);
  acks.accepted(a, ids[2]!);
  acks.accepted(a, ids[3]!); // not a's task: never written
  acks.settled(a, [ids[0]!]); // its result came first
  acks.settled(a, [ids[1]!]); // a result from another node settles nothing
  t.same([...(await status()).values()], ['queued', 'queued', 'queued', 'queued'], 'nothing written before the delay');
  await acks.flush();
  const after = await status();
  t.same([ids.map((id) => after.get(id))], [['queued', 'running', 'running', 'queued']]);

  // With a short delay: written on their own.
  const soon = createAckWriter(sql, createLogger('silent'), 50);
  soon.accepted(a, ids[0]!);
  for (let i = 0; (await status()).get(ids[0]!) !== 'running'; i++) {
    if (i > 400) throw new Error('the ack was never written');
    await new Promise((r) => setTimeout(r, 25));
  }
  t.pass('written after the delay');
});
