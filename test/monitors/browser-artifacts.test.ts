import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request } from 'node:http';
import { join } from 'node:path';
import t from 'tap';
import { artifactPath, type CheckItem } from '@vantage/shared-protocol';
import { createAgent, openStateDb } from '@vantage/node-agent';
import { runCheck } from '../../node-agent/src/probes/runner.js';
import { quietLog, testConfig } from '../../node-agent/src/connection/test-support/helpers.js';
import { readIdentity } from '../../node-agent/src/state/identity.js';
import { harValidator } from '../../node-agent/src/browser/test-support/har-validator.js';
import { CHROMIUM_PATH, SKIP_WITHOUT_CHROMIUM } from '../../node-agent/src/browser/test-support/harness.js';
import { pngSize, startPageServer, tinyPng } from '../../node-agent/src/browser/test-support/pages.js';
import { enrollNode, makeToken, waitFor } from '../../control-plane/src/hub/test-harness.js';
import { makeArtifactJobDue } from '../../control-plane/src/artifacts/artifacts.db.js';
import { runArtifactRetention } from '../../control-plane/src/artifacts/retention.js';
import { artifactKey, artifactSigner } from '../../control-plane/src/artifacts/signing.js';
import { ArtifactStore } from '../../control-plane/src/artifacts/store.js';
import { startPlacementJob } from '../../control-plane/src/monitors/placement-job.js';
import { registerUser, testApp } from '../../control-plane/src/test-support/app.js';
import { reportLeftHandles } from '../../control-plane/src/test-support/left-handles.js';
import { startRelay } from './switchable-relay.js';

/*
 * Browser check artifacts end to end: a real agent runs a browser monitor in real Chromium, keeps
 * the HAR and the screenshot, uploads them to a real control plane before its result may go, and
 * the control plane serves them through signed URLs in the checks it returns, to the monitor's
 * owner only. The agent reaches the control plane through a relay the test can take down.
 */

const LOOPBACK = ['127.0.0.0/8'];
const ROUND_S = 10;
const MAX_BYTES = 1024 * 1024;
const DAY_MS = 86_400_000;

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

t.test('browser artifacts: uploaded per result, stored content-addressed, served signed to the owner', { skip: SKIP_WITHOUT_CHROMIUM }, async (t) => {
  const data_dir = mkdtempSync(join(tmpdir(), 'vantage-cp-data-'));
  t.teardown(() => rmSync(data_dir, { recursive: true, force: true }));
  const { app, sql, url, deps } = await testApp(t, { config: { probe_allow_cidrs: LOOPBACK, plan: 'business', data_dir, artifact_max_bytes: MAX_BYTES } });
  const store = new ArtifactStore(data_dir);
  const owner = await registerUser(app);
  const other = await registerUser(app);
  const pages = await startPageServer();
  t.teardown(() => pages.close());
  const relay = await startRelay(Number(new URL(url).port));
  t.teardown(() => relay.close());

  const state_dir = mkdtempSync(join(tmpdir(), 'vantage-agent-'));
  const db = openStateDb(state_dir);
  const agent = createAgent({
    db, log: quietLog, runCheck, agent_version: '0.0.0-test', backoff: { min_ms: 50, max_ms: 200 },
    config: testConfig({ control_plane_url: relay.url, token: await makeToken(sql, { country_code: 'DE', user_id: owner.user_id }), allow_cidrs: LOOPBACK, browser_executable: CHROMIUM_PATH }),
  });
  const exit = agent.start();
  let stopped = false;
  const stopAgent = async () => {
    if (stopped) return;
    stopped = true;
    await agent.stop(0);
    await exit;
  };
  t.teardown(async () => {
    await stopAgent();
    db.close();
    rmSync(state_dir, { recursive: true, force: true });
  });
  // The node row is online once the welcome is sent; the agent stores its identity when the welcome arrives.
  await waitFor(async () => readIdentity(db) !== null && (await sql`SELECT 1 FROM nodes WHERE status = 'online' AND 'browser' = ANY(capabilities)`).length === 1, 60_000);
  const node_id = readIdentity(db)!.node_id;
  const node_credential = readIdentity(db)!.credential.reveal();

  const api = async (path: string, token?: string) => {
    const res = await fetch(`${url}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    const type = res.headers.get('content-type') ?? '';
    return { status: res.status, type, body: type.startsWith('application/json') ? await res.json() as any : Buffer.from(await res.arrayBuffer()) };
  };
  const created = await fetch(`${url}/v1/monitors`, {
    method: 'POST', headers: { authorization: `Bearer ${owner.access_token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'page', type: 'browser', target: pages.url('/ok'), interval_s: 300, node_count: 1, config: { screenshot: true, viewport: { width: 800, height: 600 } } }),
  });
  t.equal(created.status, 201);
  const monitor_id = ((await created.json()) as { data: { id: string } }).data.id;
  // Rounds every 10 s instead of 300, so the test need not wait minutes.
  await sql`UPDATE monitors SET interval_s = ${ROUND_S}, revision = revision + 1 WHERE id = ${monitor_id}`;
  const job = startPlacementJob({ sql, log: deps.log, config: { ...deps.config, placement_interval_ms: 60_000 } });
  t.teardown(() => job.stop());
  await sql`UPDATE placement_queue SET due_at = now()`;
  await job.runOnce();

  const checks = async (): Promise<CheckItem[]> => (await api(`/v1/monitors/${monitor_id}/checks?from=-1h&page_size=200`, owner.access_token)).body.data.items;
  let first: CheckItem | undefined;
  await waitFor(async () => {
    first = (await checks()).find((c) => c.success && (c.output as { har_url?: string } | null)?.har_url);
    return first !== undefined;
  }, 120_000);
  const output = first!.output as { har_url: string; screenshot_url: string };

  t.test('the check read through the API names both artifacts by signed URLs that fetch them', async (t) => {
    t.match(output.har_url, new RegExp(`^${url}/v1/monitors/${monitor_id}/artifacts/[0-9a-f]{64}\\?expires=\\d+&signature=[\\w-]{43}$`));
    t.match(output.screenshot_url, /\/artifacts\/[0-9a-f]{64}\?expires=/);
    const har = await fetch(output.har_url);
    t.equal(har.status, 200);
    t.match(har.headers.get('content-type'), /^application\/json/);
    const archive = await har.json() as { log: { version: string; entries: Array<{ request: { url: string } }> } };
    t.equal(harValidator()(archive), null, 'a valid HAR 1.2');
    t.equal(archive.log.version, '1.2');
    t.ok(archive.log.entries.some((e) => e.request.url.endsWith('/img.png')), 'the HAR lists the page\'s image', { urls: archive.log.entries.map((e) => e.request.url) });
    const png = await fetch(output.screenshot_url);
    t.equal(png.status, 200);
    t.equal(png.headers.get('content-type'), 'image/png');
    t.equal(pngSize(Buffer.from(await png.arrayBuffer()))?.width, 800, 'a PNG of the viewport width');
    const sha = new URL(output.screenshot_url).pathname.split('/').pop()!;
    t.ok(existsSync(join(data_dir, 'artifacts', sha.slice(0, 2), sha.slice(2, 4), sha)), 'stored content-addressed under the data folder');
  });

  t.test('expired and tampered signed URLs are refused; the owner reads with a credential; another user gets 404', async (t) => {
    const path = new URL(output.har_url).pathname;
    const signature = new URL(output.har_url).searchParams.get('signature')!;
    const expires = Number(new URL(output.har_url).searchParams.get('expires'));
    const flipped = signature.slice(0, -1) + (signature.endsWith('A') ? 'B' : 'A');
    const tampered = await api(`${path}?expires=${expires}&signature=${flipped}`);
    t.equal(tampered.status, 403);
    t.equal(tampered.body.error.code, 'FORBIDDEN');
    t.equal((await api(`${path}?expires=${expires + 3600}&signature=${signature}`)).status, 403, 'a later expiry with the same signature');
    const other_path = artifactPath(monitor_id, sha256(randomBytes(8)));
    t.equal((await api(`${other_path}?expires=${expires}&signature=${signature}`)).status, 403, 'the signature of another path');
    const signer = artifactSigner(await artifactKey(deps));
    const expired = await api(signer.sign(path, Math.floor(Date.now() / 1000) - 5));
    t.equal(expired.status, 403);
    t.equal(expired.body.error.details.reason, 'expired');
    t.equal((await api(path)).status, 401, 'neither credential nor signature');
    const mine = await api(path, owner.access_token);
    t.equal(mine.status, 200, 'the owner with a credential');
    t.equal(mine.body.log.version, '1.2');
    const theirs = await api(path, other.access_token);
    t.equal(theirs.status, 404, 'another user');
    t.equal(theirs.body.error.code, 'MONITOR_NOT_FOUND');
  });

  const upload = (sha: string, body: Buffer | ReadableStream<Uint8Array>, credential: string, q: Record<string, string>, headers: Record<string, string> = {}) => fetch(
    `${url}/v1/nodes/artifacts/${sha}?${new URLSearchParams(q)}`,
    { method: 'PUT', headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/octet-stream', ...headers }, body, duplex: 'half' } as RequestInit,
  );
  const files = async () => (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM artifact_files`)[0]!.n;

  t.test('a node not placed on the monitor cannot upload', async (t) => {
    const stranger = await enrollNode(url, await makeToken(sql, { user_id: other.user_id }), 'stranger');
    t.teardown(() => stranger.node.close());
    const png = Buffer.concat([tinyPng(), randomBytes(16)]);
    const before = await files();
    const res = await upload(sha256(png), png, stranger.credential, { monitor_id, scheduled_at: first!.scheduled_at, kind: 'screenshot' });
    t.equal(res.status, 403);
    t.equal(((await res.json()) as any).error.code, 'FORBIDDEN');
    t.equal(await files(), before, 'nothing registered');
    t.notOk(store.has(sha256(png)), 'nothing on disk');
    const bad = await upload(sha256(png), png, 'nk_not-a-credential', { monitor_id, scheduled_at: first!.scheduled_at, kind: 'screenshot' });
    t.equal(bad.status, 401);
  });

  t.test('uploads are idempotent, bounded per round, and checked for their format', async (t) => {
    const q = { monitor_id, scheduled_at: first!.scheduled_at, kind: 'screenshot' };
    const png = Buffer.from(await (await fetch(output.screenshot_url)).arrayBuffer());
    const again = await upload(sha256(png), png, node_credential, q);
    t.equal(again.status, 200, 'the same file for the same check again');
    t.same(((await again.json()) as any).data, { sha256: sha256(png), size_bytes: png.length, created: false });
    const second = Buffer.concat([tinyPng(), randomBytes(16)]);
    t.equal((await upload(sha256(second), second, node_credential, q)).status, 201, 'a second screenshot for the round (a re-run)');
    const third = Buffer.concat([tinyPng(), randomBytes(16)]);
    const refused = await upload(sha256(third), third, node_credential, q);
    t.equal(refused.status, 409, 'no third');
    t.equal(((await refused.json()) as any).error.code, 'CONFLICT');
    const text = Buffer.from('not a png');
    t.equal((await upload(sha256(text), text, node_credential, { ...q, scheduled_at: new Date().toISOString() })).status, 400, 'a screenshot must be a PNG');
    t.notOk(store.has(sha256(text)));
  });

  t.test('an oversized upload is refused with 413 and nothing is stored', async (t) => {
    const big = Buffer.concat([tinyPng(), randomBytes(MAX_BYTES)]);
    // A round of its own: the one above holds as many screenshots as a round may.
    const q = { monitor_id, scheduled_at: new Date(Date.now() - 3_600_000).toISOString(), kind: 'screenshot' };
    const before = await files();
    const declared = await upload(sha256(big), big, node_credential, q);
    t.equal(declared.status, 413, 'Content-Length over the bound');
    t.equal(((await declared.json()) as any).error.code, 'PAYLOAD_TOO_LARGE');
    // Without a Content-Length the body is counted as it streams.
    const chunks = [big.subarray(0, 600_000), big.subarray(600_000)];
    const stream = new ReadableStream<Uint8Array>({ pull(c) { const next = chunks.shift(); if (next) c.enqueue(next); else c.close(); } });
    const streamed = await upload(sha256(big), stream, node_credential, q);
    t.equal(streamed.status, 413, 'a chunked body past the bound');
    t.equal(((await streamed.json()) as any).error.code, 'PAYLOAD_TOO_LARGE');
    t.equal(await files(), before, 'nothing registered');
    t.notOk(store.has(sha256(big)), 'nothing on disk');
    t.same(readdirSync(join(data_dir, 'artifacts', 'tmp')), [], 'no temp file left');
    const wrong = await upload(sha256(big), tinyPng(), node_credential, q);
    t.equal(wrong.status, 400, 'a body that does not hash to its name');
  });

  t.test('an upload cut off midway leaves nothing behind; sent again whole, it is stored', async (t) => {
    const png = Buffer.concat([tinyPng(), randomBytes(200_000)]);
    const sha = sha256(png);
    const q = new URLSearchParams({ monitor_id, scheduled_at: new Date(Date.now() - 7_200_000).toISOString(), kind: 'screenshot' });
    const req = request(`${url}/v1/nodes/artifacts/${sha}?${q}`, {
      method: 'PUT', headers: { authorization: `Bearer ${node_credential}`, 'content-type': 'application/octet-stream', 'content-length': String(png.length) },
    });
    req.on('error', () => undefined);
    req.write(png.subarray(0, 100_000));
    await new Promise((r) => setTimeout(r, 200));
    req.destroy();
    const tmp = join(data_dir, 'artifacts', 'tmp');
    await waitFor(async () => readdirSync(tmp).length === 0, 30_000);
    t.notOk(store.has(sha), 'no file under the digest');
    const again = await upload(sha, png, node_credential, Object.fromEntries(q));
    t.equal(again.status, 201, 'the whole file, sent again');
    t.ok(store.has(sha));
  });

  t.test('control plane unreachable: the result waits in the outbox with its artifacts, then goes with them', async (t) => {
    await relay.down();
    await waitFor(async () => agent.outbox.pendingArtifacts(10).length > 0, 60_000);
    const [held] = agent.outbox.pendingArtifacts(10);
    t.ok(existsSync(join(state_dir, 'artifacts', held!.sha256)), 'the artifact is kept in the node\'s state dir');
    t.equal(agent.outbox.readAfter(0, 100, 1e9).some((r) => r.result_id === held!.result_id), false, 'the held result is not offered to the sender');
    const stored = async () => (await checks()).find((c) => c.scheduled_at === held!.scheduled_at && c.node_id === node_id);
    t.equal(await stored(), undefined, 'not stored while the control plane is away');
    await relay.up();
    let late: CheckItem | undefined;
    await waitFor(async () => { late = await stored(); return late !== undefined; }, 90_000);
    const late_output = late!.output as { har_url: string; screenshot_url: string };
    t.not(late_output.har_url, '', 'delivered with its HAR');
    t.not(late_output.screenshot_url, '', 'and its screenshot');
    t.equal((await fetch(late_output.screenshot_url)).status, 200);
    t.equal((await fetch(late_output.har_url)).status, 200);
    await waitFor(async () => !existsSync(join(state_dir, 'artifacts', held!.sha256)), 30_000);
    t.pass('the spool file is removed once uploaded');
  });

  t.test('retention: kept while checks need them, deleted past the plan\'s retention', async (t) => {
    await stopAgent();
    await makeArtifactJobDue(sql);
    const now = await runArtifactRetention(deps);
    t.equal(now?.files, 0, 'nothing deleted within retention');
    t.equal((await fetch(output.har_url)).status, 200);
    await makeArtifactJobDue(sql);
    const later = await runArtifactRetention(deps, new Date(Date.now() + 367 * DAY_MS));
    t.ok((later?.files ?? 0) >= 2, `files deleted: ${later?.files}`);
    t.equal(await files(), 0);
    const sha = new URL(output.har_url).pathname.split('/').pop()!;
    t.notOk(store.has(sha), 'the file is gone from the data folder');
    t.equal((await fetch(output.har_url)).status, 404);
  });
  reportLeftHandles(t); // added last, so it runs after every other teardown
});
