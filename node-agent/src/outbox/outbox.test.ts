import fs from 'node:fs';
import t from 'tap';
import { openStateDb, stateFile } from '../state/db.js';
import { Outbox } from './outbox.js';
import { tcpResult } from './test-results.js';

const BIG = { max_results: 1000, max_age_s: 3600 };

t.test('results come back oldest first, are deleted only when acked, and survive reopening', async (t) => {
  const dir = `${t.testdir()}/state`;
  let db = openStateDb(dir);
  const outbox = new Outbox(db, BIG);
  const results = Array.from({ length: 5 }, () => tcpResult());
  for (const r of results) outbox.add(r);
  outbox.add(results[0]!); // same id again: ignored
  t.equal(outbox.stats().pending, 5);
  const rows = outbox.readAfter(0, 100, 1e9);
  t.same(rows.map((r) => r.result_id), results.map((r) => r.result_id), 'production order');
  t.same(JSON.parse(rows[2]!.body), results[2], 'stored as sent');
  t.same(outbox.readAfter(rows[1]!.seq, 2, 1e9).map((r) => r.result_id), [results[2]!.result_id, results[3]!.result_id], 'cursor and limit');
  t.equal(outbox.readAfter(0, 100, 10).length, 1, 'byte bound still returns one row');

  t.equal(outbox.ack([results[1]!.result_id, results[3]!.result_id, 'r_unknown']), 2);
  t.equal(outbox.stats().pending, 3);
  db.close();

  db = openStateDb(dir);
  t.teardown(() => db.close());
  const again = new Outbox(db, BIG);
  t.equal(again.stats().pending, 3, 'pending count restored');
  t.same(again.readAfter(0, 100, 1e9).map((r) => r.result_id), [0, 2, 4].map((i) => results[i]!.result_id));
  t.equal(fs.statSync(stateFile(dir)).mode & 0o777, 0o600, 'state DB is 0600');
  t.equal(fs.statSync(dir).mode & 0o777, 0o700, 'state dir is 0700');
});

t.test('the count bound drops the oldest first and counts the drops persistently', async (t) => {
  const dir = t.testdir();
  const db = openStateDb(dir);
  t.teardown(() => db.close());
  const outbox = new Outbox(db, { max_results: 3, max_age_s: 3600 });
  const results = Array.from({ length: 5 }, () => tcpResult());
  const dropped = results.map((r) => outbox.add(r));
  t.same(dropped, [0, 0, 0, 1, 1]);
  t.same(outbox.readAfter(0, 10, 1e9).map((r) => r.result_id), results.slice(2).map((r) => r.result_id), 'newest three kept');
  t.same(outbox.stats().dropped_total, 2);
  t.equal(new Outbox(db, { max_results: 3, max_age_s: 3600 }).stats().dropped_total, 2, 'dropped total persists');
});

t.test('the age bound drops results older than max_age_s', async (t) => {
  const dir = t.testdir();
  const db = openStateDb(dir);
  t.teardown(() => db.close());
  let now = Date.parse('2026-11-22T10:00:00Z');
  const outbox = new Outbox(db, { max_results: 100, max_age_s: 60 }, () => now);
  const old = tcpResult();
  outbox.add(old);
  now += 30_000;
  const young = tcpResult();
  outbox.add(young);
  t.equal(outbox.stats().oldest_pending_at, '2026-11-22T10:00:00.000Z');
  now += 31_000;
  t.equal(outbox.pruneAge(), 1);
  t.same(outbox.readAfter(0, 10, 1e9).map((r) => r.result_id), [young.result_id]);
  t.same(outbox.stats(), { pending: 1, dropped_total: 1, oldest_pending_at: '2026-11-22T10:00:30.000Z' });
});

t.test('text a store cannot hold (NUL, lone surrogates) is replaced before it is written', async (t) => {
  const db = openStateDb(`${t.testdir()}/state`);
  t.teardown(() => db.close());
  const outbox = new Outbox(db, BIG);
  const result = tcpResult({ success: false, error: 'banner \u0000 from \ud800 target', error_class: 'target' });
  outbox.add(result);
  const body = outbox.readAfter(0, 10, 1e9)[0]!.body;
  t.notMatch(body, /\\u0000|\\ud800/, 'no escaped NUL or lone surrogate in the stored JSON');
  t.equal(JSON.parse(body).error, 'banner \ufffd from \ufffd target');
  t.equal(result.error, 'banner \u0000 from \ud800 target', 'the caller\'s object is untouched');
});
