/**
 * Browser checks on one node: how many checks per minute one browser pool (the node's default
 * concurrency 2) completes against a local page (text, image, stylesheet, script; every request
 * through the target-policy guard and recorded in a HAR), with and without the full-page
 * screenshot, and the peak memory while doing so: the node process's RSS plus the browser's
 * processes (summed PSS), sampled every 100 ms.
 *
 *   cd /work/main && npx tsx test/bench/browser-bench.ts [--checks 60] [--concurrency 2]
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CHROMIUM_PATH, check, testPool } from '../../node-agent/src/browser/test-support/harness.js';
import { startPageServer } from '../../node-agent/src/browser/test-support/pages.js';
import { sampleMemory } from './lib/browser-memory.js';

const { values } = parseArgs({ options: { checks: { type: 'string', default: '60' }, concurrency: { type: 'string', default: '2' } } });
const checks = Number(values.checks);
const concurrency = Number(values.concurrency);
if (!existsSync(CHROMIUM_PATH)) {
  console.log(`browser-bench: skipped, no Chromium at ${CHROMIUM_PATH}`);
  process.exit(0);
}

const mb = (b: number) => (b / 1048576).toFixed(0);
const pages = await startPageServer();
const pool = testPool({ concurrency });
await check(pool, pages.url('/ok')); // launch outside the measurement

async function round(label: string, config: object): Promise<void> {
  const stop = sampleMemory(pool);
  let next = 0;
  let failed = 0;
  const started = performance.now();
  // As many workers as slots: the pool is the limit, as on a node.
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < checks) {
      next++;
      const r = await check(pool, pages.url('/ok'), config);
      if (!r.success) failed++;
    }
  }));
  const elapsed_s = (performance.now() - started) / 1000;
  const peak = stop();
  console.log(`${label}: ${checks} checks in ${elapsed_s.toFixed(1)} s = ${(checks / elapsed_s * 60).toFixed(0)} checks/min (${failed} failed); `
    + `peak RSS node ${mb(peak.node)} MB, browser ${mb(peak.browser)} MB (PSS), together ${mb(peak.total)} MB; launches ${pool.launches}`);
}

console.log(`browser-bench: ${checks} checks per round, concurrency ${concurrency}, ${CHROMIUM_PATH}`);
await round('no screenshot', { assertions: [{ kind: 'renderable' }, { kind: 'resources_all_ok' }] });
await round('screenshot   ', { screenshot: true, assertions: [{ kind: 'renderable' }, { kind: 'resources_all_ok' }] });
await pool.close();
await pages.close();
