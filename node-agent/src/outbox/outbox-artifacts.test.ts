import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { artifactPath, newId, type ResultEnvelope } from '@vantage/shared-protocol';
import { openStateDb } from '../state/db.js';
import { ArtifactSpool } from './artifact-spool.js';
import { Outbox } from './outbox.js';
import { tcpResult } from './test-results.js';

const BIG = { max_results: 1000, max_age_s: 3600 };

/** A browser monitor result naming `har` and `screenshot` digests (empty string: none). */
function browserResult(monitor_id: string, har: string, screenshot: string): ResultEnvelope {
  const now = new Date().toISOString();
  return {
    result_id: newId('result'), task_id: null, monitor_id, type: 'browser', scheduled_at: now, started_at: now, finished_at: now,
    success: true, error: null, error_class: null, assertions: [],
    output: {
      assertion_results: [], console_errors: [], dom_content_loaded_ms: 1, first_paint_ms: 1, load_ms: 2, failed_resources: [], resources: [],
      har_url: har ? artifactPath(monitor_id, har) : '', screenshot_url: screenshot ? artifactPath(monitor_id, screenshot) : '',
    },
  } as unknown as ResultEnvelope;
}

t.test('a result naming artifacts is held until each is settled, then sent after what the sender passed', async (t) => {
  const db = openStateDb(t.testdir());
  t.teardown(() => db.close());
  const outbox = new Outbox(db, BIG);
  const spool = new ArtifactSpool(path.join(t.testdir(), 'artifacts'), 1 << 20);
  const har = (await spool.put(Buffer.from('{"log":{}}')))!;
  const png = (await spool.put(Buffer.from('png bytes')))!;
  const monitor_id = newId('monitor');
  const held = browserResult(monitor_id, har.sha256, png.sha256);
  outbox.add(held);
  const after = tcpResult();
  outbox.add(after);
  const sent = outbox.readAfter(0, 100, 1e9);
  t.same(sent.map((r) => r.result_id), [after.result_id], 'the held result is not offered; later ones are');
  t.same(outbox.pendingArtifacts(10).map((a) => [a.kind, a.sha256]), [['har', har.sha256], ['screenshot', png.sha256]]);
  t.same(outbox.artifactDigests(), new Set([har.sha256, png.sha256]));

  t.same(outbox.artifactSettled(held.result_id, 'har', true), { released: false, freed: true });
  t.same(outbox.readAfter(0, 100, 1e9).map((r) => r.result_id), [after.result_id], 'still held: one artifact left');
  t.same(outbox.artifactSettled(held.result_id, 'screenshot', false), { released: true, freed: true });
  const next = outbox.readAfter(sent[0]!.seq, 100, 1e9);
  t.same(next.map((r) => r.result_id), [held.result_id], 'released under a seq after the sender\'s cursor');
  const body = JSON.parse(next[0]!.body) as { output: { har_url: string; screenshot_url: string } };
  t.equal(body.output.har_url, artifactPath(monitor_id, har.sha256), 'a stored artifact keeps its path');
  t.equal(body.output.screenshot_url, '', 'a refused one is unavailable');
  t.equal(outbox.stats().pending, 2);
  t.same(outbox.artifactSettled(held.result_id, 'screenshot', true), { released: false, freed: false }, 'settling twice is a no-op');
});

t.test('artifacts of dropped results are freed; the spool is bounded and sweeps what no result needs', async (t) => {
  const db = openStateDb(t.testdir());
  t.teardown(() => db.close());
  const dir = path.join(t.testdir(), 'artifacts');
  const spool = new ArtifactSpool(dir, 64);
  const freed: string[] = [];
  const outbox = new Outbox(db, { max_results: 10, max_age_s: 3600 }, Date.now, (shas) => {
    freed.push(...shas);
    for (const s of shas) spool.remove(s);
  });
  const a = (await spool.put(Buffer.alloc(40, 1)))!;
  t.equal(await spool.put(Buffer.alloc(40, 2)), null, 'past max_bytes nothing is kept');
  t.equal(spool.used_bytes, 40);
  const shared = browserResult(newId('monitor'), a.sha256, '');
  outbox.add(shared);
  for (let i = 0; i < 10; i++) outbox.add(tcpResult());
  t.same(freed, [a.sha256], 'the count bound dropped the held result: its artifact is freed');
  t.notOk(fs.existsSync(path.join(dir, a.sha256)));
  t.same(outbox.pendingArtifacts(10), []);

  const b = (await spool.put(Buffer.alloc(10, 3)))!;
  fs.writeFileSync(path.join(dir, '.half.tmp'), 'x');
  t.equal(spool.sweep(outbox.artifactDigests()), 1, 'a file no result names is swept');
  t.notOk(fs.existsSync(path.join(dir, b.sha256)));
  const reopened = new ArtifactSpool(dir, 64);
  t.equal(reopened.used_bytes, 0);
  t.notOk(fs.existsSync(path.join(dir, '.half.tmp')), 'half-written files are deleted at start');
});
