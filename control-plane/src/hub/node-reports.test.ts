import t from 'tap';
import { createLogger } from '../log.js';
import { testDatabase } from '../test-support/db.js';
import { nodeReports } from './node-reports.js';
import { enrollNode, makeToken, startHub } from './test-harness.js';

const { url, sql } = await testDatabase(t);
const { base } = await startHub(t, sql, url, { instance_id: 'reports-test' });

t.test('outbox.stats and clock offsets: the latest per node, written together at the flush', async (t) => {
  const a = await enrollNode(base, await makeToken(sql), 'a');
  const b = await enrollNode(base, await makeToken(sql), 'b');
  t.teardown(() => { a.node.close(); b.node.close(); });
  // A flush interval longer than the test: only flush() writes.
  const reports = nodeReports(sql, createLogger('silent'), 3_600_000);
  t.teardown(() => reports.outbox.close());
  t.teardown(() => reports.clock.close());
  for (let pending = 1; pending <= 3; pending++) reports.outbox.note({ id: a.node_id, pending, dropped_total: pending * 10, oldest_pending_at: '2026-11-22T09:59:00.000Z' });
  reports.outbox.note({ id: b.node_id, pending: 7, dropped_total: 0, oldest_pending_at: null });
  reports.clock.note({ id: a.node_id, offset_ms: 40 });
  reports.clock.note({ id: a.node_id, offset_ms: -1500 });
  const row = async (id: string) => (await sql`SELECT outbox_pending, outbox_dropped_total, outbox_oldest_pending_at, outbox_reported_at, clock_offset_ms FROM nodes WHERE id = ${id}`)[0]!;
  t.match(await row(a.node_id), { outbox_reported_at: null, clock_offset_ms: null }, 'nothing written before the flush');
  await reports.outbox.flush();
  await reports.clock.flush();
  t.match(await row(a.node_id), { outbox_pending: 3, outbox_dropped_total: 30, clock_offset_ms: -1500 }, 'the last report of a node wins');
  t.equal((await row(a.node_id)).outbox_oldest_pending_at.toISOString(), '2026-11-22T09:59:00.000Z');
  t.match(await row(b.node_id), { outbox_pending: 7, outbox_dropped_total: 0, outbox_oldest_pending_at: null, clock_offset_ms: null });
  t.ok((await row(b.node_id)).outbox_reported_at instanceof Date);
  // A node removed meanwhile costs only itself.
  reports.outbox.note({ id: 'n_gone', pending: 1, dropped_total: 0, oldest_pending_at: null });
  reports.outbox.note({ id: b.node_id, pending: 8, dropped_total: 1, oldest_pending_at: null });
  await reports.outbox.flush();
  t.match(await row(b.node_id), { outbox_pending: 8, outbox_dropped_total: 1 });
});
