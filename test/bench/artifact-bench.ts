/**
 * Browser check artifacts on one node: what keeping and uploading the HAR and the screenshot costs.
 *
 * 1. Browser checks per minute with the screenshot on and both files kept in the artifact spool
 *    (hashed, written, as browser/check.ts does), the node's pool at concurrency 2; peak RSS of
 *    the node process and of the browser (summed PSS), sampled every 100 ms; spool write p50/p99.
 * 2. Uploads of those files to a real control plane (real Postgres): `PUT /v1/nodes/artifacts/{sha}`
 *    with a node credential, one at a time as the agent's uploader sends them, distinct content each
 *    time (so every upload is written and registered): p50/p99 per upload and MB/s.
 *
 *   cd /work/main && npx tsx test/bench/artifact-bench.ts [--checks 30] [--uploads 200]
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { enrollProof, PROTOCOL_VERSION } from '@vantage/shared-protocol';
import { CHROMIUM_PATH, check, testPool } from '../../node-agent/src/browser/test-support/harness.js';
import { startPageServer } from '../../node-agent/src/browser/test-support/pages.js';
import { ArtifactSpool } from '../../node-agent/src/outbox/artifact-spool.js';
import { makeToken } from '../../control-plane/src/hub/test-harness.js';
import { TestNode } from '../../control-plane/src/test-support/test-node.js';
import { registerUser, testApp } from '../../control-plane/src/test-support/app.js';
import { sampleMemory } from './lib/browser-memory.js';
import { quantile, median } from './lib/stats.js';

const { values } = parseArgs({ options: { checks: { type: 'string', default: '30' }, uploads: { type: 'string', default: '200' } } });
const checks = Number(values.checks);
const uploads = Number(values.uploads);
if (!existsSync(CHROMIUM_PATH)) {
  console.log(`artifact-bench: skipped, no Chromium at ${CHROMIUM_PATH}`);
  process.exit(0);
}
const mb = (b: number) => (b / 1048576).toFixed(0);
const ms = (x: number) => x.toFixed(1);
console.log(`artifact-bench: ${checks} checks, ${uploads} uploads; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);

// 1. Checks with their artifacts kept.
const pages = await startPageServer();
const pool = testPool({ concurrency: 2 });
const spool_dir = mkdtempSync(join(tmpdir(), 'vantage-spool-'));
const spool = new ArtifactSpool(spool_dir, 1 << 30);
await check(pool, pages.url('/ok')); // launch outside the measurement
const stop = sampleMemory(pool);
const put_ms: number[] = [];
const sizes = { har: [] as number[], png: [] as number[] };
const kept: Array<{ har: Buffer; png: Buffer }> = [];
let next = 0;
let failed = 0;
const reasons = new Map<string, number>();
const started = performance.now();
await Promise.all(Array.from({ length: 2 }, async () => {
  while (next < checks) {
    next++;
    const r = await check(pool, pages.url('/ok'), { screenshot: true, assertions: [{ kind: 'renderable' }] });
    if (!r.success || !r.artifacts.har || !r.artifacts.screenshot) {
      failed++;
      const why = (r.error ?? 'no artifacts').slice(0, 80);
      reasons.set(why, (reasons.get(why) ?? 0) + 1);
      continue;
    }
    const t0 = performance.now();
    await spool.put(r.artifacts.har);
    await spool.put(r.artifacts.screenshot);
    put_ms.push(performance.now() - t0);
    sizes.har.push(r.artifacts.har.length);
    sizes.png.push(r.artifacts.screenshot.length);
    if (kept.length === 0) kept.push({ har: r.artifacts.har, png: r.artifacts.screenshot });
  }
}));
const elapsed_s = (performance.now() - started) / 1000;
const peak = stop();
await pool.close();
await pages.close();
rmSync(spool_dir, { recursive: true, force: true });
console.log(`checks with HAR + screenshot kept: ${checks} in ${elapsed_s.toFixed(1)} s = ${(checks / elapsed_s * 60).toFixed(0)} checks/min (${failed} failed); `
  + `peak RSS node ${mb(peak.node)} MB, browser ${mb(peak.browser)} MB (PSS), together ${mb(peak.total)} MB`);
if (failed > 0) console.log(`  failures: ${[...reasons].map(([why, n]) => `${n} x ${why}`).join('; ')}`);
console.log(`  artifact sizes (median): HAR ${(median(sizes.har) / 1024).toFixed(1)} KiB, PNG ${(median(sizes.png) / 1024).toFixed(1)} KiB; `
  + `spool write of both p50 ${ms(median(put_ms))} ms, p99 ${ms(quantile(put_ms, 0.99))} ms`);
const samples = kept[0];
if (!samples) {
  console.log('no artifacts to upload (every check failed)');
  process.exit(1);
}

// 2. Uploads to a real control plane, as the agent's uploader sends them.
const cleanups: Array<() => unknown> = [];
const data_dir = mkdtempSync(join(tmpdir(), 'vantage-cp-data-'));
const { app, sql, url } = await testApp({ teardown: (fn: () => unknown) => void cleanups.push(fn) }, { config: { data_dir, plan: 'business', probe_allow_cidrs: ['127.0.0.0/8'] } });
const user = await registerUser(app);
const node = await TestNode.connect(url, await makeToken(sql, { user_id: user.user_id }));
node.send({ type: 'enroll', protocol_version: PROTOCOL_VERSION, agent_version: '0.0.0-bench', hostname: 'bench', capabilities: ['browser', 'http'] });
const welcome = await node.next('welcome');
node.send({ type: 'enroll.confirm', node_id: welcome.node_id, proof: enrollProof(welcome.credential!, welcome.node_id) });
await node.next('enroll.confirmed');
const created = await app.request('/v1/monitors', {
  method: 'POST', headers: { authorization: `Bearer ${user.access_token}`, 'content-type': 'application/json' },
  body: JSON.stringify({ name: 'bench', type: 'browser', target: 'http://127.0.0.1:9/', node_count: 1, config: { screenshot: true } }),
});
const monitor_id = ((await created.json()) as { data: { id: string } }).data.id;
await sql`INSERT INTO monitor_placements (monitor_id, node_id, revision) VALUES (${monitor_id}, ${welcome.node_id}, 1) ON CONFLICT DO NOTHING`;

const upload_ms: number[] = [];
let bytes = 0;
const up_started = performance.now();
for (let i = 0; i < uploads; i++) {
  // Distinct content per round (a new tail), so each upload is hashed, written and registered.
  const round = new Date(Date.now() - i * 300_000).toISOString();
  for (const [kind, base] of [['har', samples.har], ['screenshot', samples.png]] as const) {
    const body = kind === 'har' ? Buffer.concat([base.subarray(0, base.lastIndexOf('}')), Buffer.from(`,"_bench":${i}}`)])
      : Buffer.concat([base, randomBytes(16)]);
    const sha = createHash('sha256').update(body).digest('hex');
    const t0 = performance.now();
    const res = await fetch(`${url}/v1/nodes/artifacts/${sha}?${new URLSearchParams({ monitor_id, scheduled_at: round, kind })}`, {
      method: 'PUT', headers: { authorization: `Bearer ${welcome.credential}`, 'content-type': 'application/octet-stream' }, body,
    });
    await res.arrayBuffer();
    if (res.status !== 201 && res.status !== 200) throw new Error(`upload answered ${res.status}`);
    upload_ms.push(performance.now() - t0);
    bytes += body.length;
  }
}
const up_s = (performance.now() - up_started) / 1000;
console.log(`uploads, one at a time: ${upload_ms.length} in ${up_s.toFixed(1)} s; per upload p50 ${ms(median(upload_ms))} ms, p99 ${ms(quantile(upload_ms, 0.99))} ms; `
  + `${(bytes / 1048576 / up_s).toFixed(1)} MB/s; load average now ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
node.close();
for (const fn of cleanups) await fn();
rmSync(data_dir, { recursive: true, force: true });
process.exit(0);
