import { newId, type ResultEnvelope } from '@vantage/shared-protocol';
import pino from 'pino';
import t, { type Test } from 'tap';
import { openStateDb } from '../state/db.js';
import { openResultAudit, readResultAudit } from './audit.js';
import { Outbox } from './outbox.js';
import { ResultWriter, type ResultWriterOptions } from './result-writer.js';
import { tcpResult } from './test-results.js';

const BIG = { max_results: 1000, max_age_s: 3600 };
/** A monitor result (no task: it may wait for the group). */
const monitorResult = () => tcpResult({ task_id: null, monitor_id: newId('monitor'), scheduled_at: new Date().toISOString() } as Partial<ResultEnvelope>);

/** A writer on a real state DB; `commits` lists the groups committed, in order. */
function harness(t: Test, over: Partial<ResultWriterOptions> = {}) {
  const dir = `${t.testdir()}/state`;
  const db = openStateDb(dir);
  t.teardown(() => { if (db.open) db.close(); });
  const outbox = new Outbox(db, BIG);
  const commits: Array<{ ids: string[]; dropped: number; held: number }> = [];
  const errors: unknown[] = [];
  const log = pino({ level: 'error' }, { write: (line: string) => { errors.push(JSON.parse(line)); } });
  const writer = new ResultWriter({
    outbox, audit: null, log, commit_delay_ms: 30,
    onCommitted: (results, info) => commits.push({ ids: results.map((r) => r.result_id), ...info }),
    ...over,
  });
  return { dir, db, outbox, writer, commits, errors };
}

const turn = () => new Promise((r) => setImmediate(r));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('monitor results produced together are committed in one group after the delay', async (t) => {
  const { outbox, writer, commits } = harness(t);
  const results = [monitorResult(), monitorResult(), monitorResult()];
  writer.write(results[0]!);
  await turn();
  writer.write(results[1]!);
  writer.write(results[2]!);
  t.equal(outbox.stats().pending, 0, 'not committed yet');
  t.equal(writer.waiting, 3);
  await sleep(80);
  t.same(commits, [{ ids: results.map((r) => r.result_id), dropped: 0, held: 0 }], 'one commit for the three');
  t.same(outbox.readAfter(0, 10, 1e9).map((r) => JSON.parse(r.body)), results, 'stored as produced, in order');
  t.equal(writer.waiting, 0);
});

t.test('an ad-hoc task result is committed in the same event-loop turn, with what waited before it', async (t) => {
  const { outbox, writer, commits } = harness(t, { commit_delay_ms: 60_000 });
  const waiting = monitorResult();
  const task = tcpResult();
  writer.write(waiting);
  writer.write(task);
  await turn();
  t.equal(outbox.stats().pending, 2);
  t.same(commits.map((c) => c.ids), [[waiting.result_id, task.result_id]]);
});

t.test('a full group is committed at once; flush() commits what waits; the same id twice is stored once', async (t) => {
  const { outbox, writer, commits } = harness(t, { commit_delay_ms: 60_000, group_max: 2 });
  const a = monitorResult();
  writer.write(a);
  writer.write(monitorResult());
  await turn();
  t.equal(outbox.stats().pending, 2, 'the group of 2 went without waiting for the delay');
  writer.write(monitorResult());
  writer.write(a); // sent twice (e.g. delivered again): stored once
  writer.flush();
  t.equal(outbox.stats().pending, 3);
  t.equal(commits.length, 2);
  writer.flush();
  t.equal(commits.length, 2, 'nothing waiting: no empty commit');
});

t.test('the result audit records the group in the same transaction', async (t) => {
  const dir = `${t.testdir()}/state`;
  const db = openStateDb(dir);
  t.teardown(() => db.close());
  const outbox = new Outbox(db, BIG);
  const writer = new ResultWriter({ outbox, audit: openResultAudit(db, true), log: pino({ level: 'silent' }), onCommitted: () => undefined });
  const results = [monitorResult(), tcpResult()];
  for (const r of results) writer.write(r);
  writer.flush();
  const read = readResultAudit(dir);
  t.same(read.produced.map((r) => r.result_id).sort(), results.map((r) => r.result_id).sort());
  t.equal(read.outbox_pending, 2);
});

t.test('a commit that fails writes none of the group and logs the lost ids', async (t) => {
  const { db, writer, commits, errors } = harness(t);
  const r = monitorResult();
  writer.write(r);
  db.close();
  t.doesNotThrow(() => writer.flush());
  t.same(commits, [], 'no commit reported');
  t.match(errors, [{ msg: 'could not write results to the outbox; results lost', result_ids: [r.result_id] }]);
  t.equal(writer.waiting, 0);
});
