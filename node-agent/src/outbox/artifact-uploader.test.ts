import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import path from 'node:path';
import t, { type Test } from 'tap';
import { artifactPath, newId, type ResultEnvelope } from '@vantage/shared-protocol';
import { silentLogger } from '../probes/test-support/logger.js';
import { Secret } from '../secret.js';
import { openStateDb } from '../state/db.js';
import { ArtifactSpool } from './artifact-spool.js';
import { ArtifactUploader } from './artifact-uploader.js';
import { Outbox } from './outbox.js';

/** A real HTTP server on loopback answering uploads with `answer(req)`; records what it got. */
async function uploadServer(t: Test, answer: (req: IncomingMessage, body: Buffer) => number) {
  const got: Array<{ url: string; auth: string | undefined; bytes: number }> = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      got.push({ url: req.url ?? '', auth: req.headers.authorization, bytes: body.length });
      const status = answer(req, body);
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(status < 300 ? { data: {} } : { error: { code: status === 413 ? 'PAYLOAD_TOO_LARGE' : 'INTERNAL_ERROR' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, got };
}

async function setup(t: Test, control_plane_url: string) {
  const db = openStateDb(t.testdir());
  t.teardown(() => db.close());
  const spool = new ArtifactSpool(path.join(t.testdir(), 'artifacts'), 1 << 20);
  const outbox = new Outbox(db, { max_results: 100, max_age_s: 3600 });
  const kept = (await spool.put(Buffer.from('{"log":{"version":"1.2"}}')))!;
  const monitor_id = newId('monitor');
  const now = new Date().toISOString();
  const result = {
    result_id: newId('result'), task_id: null, monitor_id, type: 'browser', scheduled_at: now, started_at: now, finished_at: now,
    success: true, error: null, error_class: null, assertions: [],
    output: { assertion_results: [], console_errors: [], dom_content_loaded_ms: 1, first_paint_ms: 1, load_ms: 1, failed_resources: [], resources: [], har_url: artifactPath(monitor_id, kept.sha256), screenshot_url: '' },
  } as unknown as ResultEnvelope;
  outbox.add(result);
  let released = 0;
  const uploader = new ArtifactUploader({
    outbox, spool, log: silentLogger(), onReleased: () => { released++; }, backoff: { min_ms: 10, max_ms: 40 },
    target: () => ({ control_plane_url, credential: new Secret('nk_test') }),
  });
  t.teardown(() => uploader.stop());
  return { outbox, spool, uploader, kept, result, released: () => released };
}

const until = async (what: () => boolean, timeout_ms = 10_000) => {
  const end = Date.now() + timeout_ms;
  while (!what()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
};

t.test('stored: the result is released, the spool file deleted; sent with the node credential and the result\'s round', async (t) => {
  const cp = await uploadServer(t, () => 201);
  const s = await setup(t, cp.url);
  s.uploader.kick();
  await until(() => s.released() === 1);
  t.equal(cp.got.length, 1);
  t.match(cp.got[0]!.url, new RegExp(`^/v1/nodes/artifacts/${s.kept.sha256}\\?monitor_id=m_\\w+&scheduled_at=.+&kind=har$`));
  t.equal(cp.got[0]!.auth, 'Bearer nk_test');
  t.equal(s.spool.used_bytes, 0, 'spool file deleted');
  const [row] = s.outbox.readAfter(0, 10, 1e9);
  t.equal(JSON.parse(row!.body).output.har_url, artifactPath(s.result.monitor_id!, s.kept.sha256));
});

t.test('unreachable: retried until the control plane answers; then stored', async (t) => {
  const cp = await uploadServer(t, () => 201);
  const s = await setup(t, 'http://127.0.0.1:1');
  s.uploader.kick();
  await new Promise((r) => setTimeout(r, 300));
  t.equal(s.released(), 0, 'held while nothing answers');
  t.equal(s.outbox.readAfter(0, 10, 1e9).length, 0);
  // The same outbox and spool, now with a reachable control plane (as after a reconnect).
  const again = new ArtifactUploader({
    outbox: s.outbox, spool: s.spool, log: silentLogger(), onReleased: () => undefined, target: () => ({ control_plane_url: cp.url, credential: new Secret('nk_test') }),
  });
  t.teardown(() => again.stop());
  await s.uploader.stop();
  again.kick(true);
  await until(() => s.outbox.readAfter(0, 10, 1e9).length === 1);
  t.equal(cp.got.length, 1);
});

t.test('refused for good (413): released without the URL; repeated server errors or 401 give up too', async (t) => {
  const too_big = await uploadServer(t, () => 413);
  const s = await setup(t, too_big.url);
  s.uploader.kick();
  await until(() => s.released() === 1);
  t.equal(too_big.got.length, 1, 'not retried');
  t.equal(JSON.parse(s.outbox.readAfter(0, 10, 1e9)[0]!.body).output.har_url, '');

  // 500: cannot store; 401: a control plane without this route refuses the node credential on HTTP.
  for (const status of [500, 401]) {
    const broken = await uploadServer(t, () => status);
    const b = await setup(t, broken.url);
    b.uploader.kick();
    await until(() => b.released() === 1);
    t.equal(broken.got.length, 8, `given up after 8 answers of ${status}`);
    t.equal(JSON.parse(b.outbox.readAfter(0, 10, 1e9)[0]!.body).output.har_url, '');
    t.equal(b.spool.used_bytes, 0);
  }
});
