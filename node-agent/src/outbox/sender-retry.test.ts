import t, { type Test } from 'tap';
import pino from 'pino';
import { openStateDb } from '../state/db.js';
import { openResultAudit, readResultAudit } from './audit.js';
import { Outbox } from './outbox.js';
import { OutboxSender } from './sender.js';
import { tcpResult } from './test-results.js';

const BIG = { max_results: 1000, max_age_s: 3600 };

/** A sender whose frames are collected; `next()` resolves with the next frame sent. */
function harness(t: Test) {
  const dir = `${t.testdir()}/state`;
  const db = openStateDb(dir);
  t.teardown(() => db.close());
  const outbox = new Outbox(db, BIG);
  const waiting: Array<(frame: { batch_id: number; results: Array<{ result_id: string }> }) => void> = [];
  const sender = new OutboxSender({
    outbox, log: pino({ level: 'silent' }), retry_ms: 20,
    send: (frame) => { waiting.shift()?.(JSON.parse(frame)); return true; },
  });
  // The sender's timers are unref'd (the socket keeps a real agent alive): a ref'd guard timer
  // keeps this process alive while waiting, and fails the wait if no frame ever comes.
  const next = () => new Promise<{ batch_id: number; results: Array<{ result_id: string }> }>((resolve, reject) => {
    const guard = setTimeout(() => reject(new Error('no frame sent within 10 s')), 10_000);
    waiting.push((frame) => { clearTimeout(guard); resolve(frame); });
  });
  return { dir, db, outbox, sender, next };
}

// test/faults scenario 4: a batch the control plane could not store (its database restarting) must
// go again while the link stays up, not wait for a reconnect that may never come.
t.test('a batch refused with "resend later" is sent again on the same link', async (t) => {
  const { outbox, sender, next } = harness(t);
  const result = tcpResult();
  outbox.add(result);
  const first = next();
  sender.connected();
  const batch = await first;
  t.same(batch.results.map((r) => r.result_id), [result.result_id]);
  const again = next();
  sender.refused(batch.batch_id, true);
  const resent = await again;
  t.not(resent.batch_id, batch.batch_id, 'a new batch');
  t.same(resent.results.map((r) => r.result_id), [result.result_id], 'with the unacked result');
  sender.acked(resent.batch_id, [result.result_id]);
  t.equal(outbox.stats().pending, 0, 'acked: gone from the outbox');
});

t.test('the result audit records exactly what the outbox committed', async (t) => {
  const { dir, db, outbox } = harness(t);
  const audit = openResultAudit(db, true)!;
  const kept = tcpResult();
  audit.record(kept, () => outbox.add(kept));
  const lost = tcpResult();
  t.throws(() => audit.record(lost, () => { outbox.add(lost); throw new Error('crash before commit'); }));
  const read = readResultAudit(dir);
  t.same(read.produced.map((r) => r.result_id), [kept.result_id], 'the rolled-back result is in neither');
  t.equal(read.outbox_pending, 1);
  t.equal(openResultAudit(db, false), null, 'off unless enabled');
});
