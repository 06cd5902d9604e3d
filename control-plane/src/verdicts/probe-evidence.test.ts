import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { newId } from '@vantage/shared-protocol';
import type { Sql } from '../db/sql.js';
import { seedNodes } from '../checks/test-support.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { runVerdictGeneration } from './generate.js';
import { summariseProbes } from './probe-evidence.js';

/*
 * A report of a target the customer only probed (no monitor): its ad-hoc probe results in the
 * window, per probe type and node, summarised (results, failures, nearest-rank percentiles of
 * each type's response time) and printed in the signed PDF (read back by pdftotext); results
 * outside the window or of another account are not counted.
 */

const run = promisify(execFile);
const HOUR = 3_600_000;

t.test('summariseProbes: per type and node, failures, nearest-rank percentiles of the type\'s time', async (t) => {
  const http = (ms: number, success = true) => ({ node_id: 'n_b', country: 'DE', probe_type: 'http', success, output: { response_ms: ms } });
  const rows = summariseProbes([
    ...[10, 20, 30, 40, 50, 60, 70, 80, 90, 100].map((ms) => http(ms)),
    http(999, false),
    { node_id: 'n_a', country: null, probe_type: 'ping', success: true, output: { rtt_avg_ms: 12.5 } },
    { node_id: 'n_a', country: null, probe_type: 'ping', success: true, output: null },
  ]);
  t.same(rows, [
    { probe_type: 'http', node_id: 'n_b', country: 'DE', probes: 11, failures: 1, failure_rate: 1 / 11, p50_ms: 50, p95_ms: 100, p99_ms: 100, max_ms: 100 },
    { probe_type: 'ping', node_id: 'n_a', country: null, probes: 2, failures: 0, failure_rate: 0, p50_ms: 12.5, p95_ms: 12.5, p99_ms: 12.5, max_ms: 12.5 },
  ], 'a failed result counts as a failure, never as a time; a result without a time counts, without a percentile');
  t.same(summariseProbes([]), []);
});

/** One finished ad-hoc probe of `target` by `user_id` from `node_id`, created at `at`. */
async function probed(sql: Sql, p: { user_id: string; node_id: string; target: string; at: Date; type: 'http' | 'ping'; success: boolean; ms: number }): Promise<void> {
  const task = newId('probe_task');
  await sql`INSERT INTO probe_tasks (id, group_id, ordinal, node_id, probe_type, target, "check", timeout_ms, requester_user_id, status, created_at, finished_at, deadline_at)
    VALUES (${task}, ${task}, 0, ${p.node_id}, ${p.type}, ${p.target}, '{}'::jsonb, 10000, ${p.user_id}, 'completed', ${p.at}, ${p.at}, ${new Date(p.at.getTime() + 60_000)})`;
  const output = p.type === 'http' ? { status_code: 200, response_ms: p.ms } : { packets_sent: 4, packets_received: 4, rtt_avg_ms: p.ms };
  await sql`INSERT INTO probe_results (result_id, task_id, group_id, node_id, from_node, success, error, output, finished_at)
    VALUES (${newId('result')}, ${task}, ${task}, ${p.node_id}, true, ${p.success}, ${p.success ? null : 'timeout'}, ${sql.json(output as never)}, ${p.at})`;
}

t.test('a report of a probed-only target shows its probes per node', async (t) => {
  const { app, sql, deps } = await testApp(t);
  const [alice, bob] = [await registerUser(app), await registerUser(app)];
  // The second node's id is as wide as an id gets in the report's font (every letter an `m`; a
  // random one was cut now and then): ids are evidence, printed whole.
  const wide = `n_${'m'.repeat(26)}`;
  await sql`INSERT INTO nodes (id, name, status, country, last_seen_at) VALUES (${wide}, 'node-wide', 'online', 'US', now())`;
  const nodes = [...await seedNodes(sql, 1), wide];
  const now = Date.now();
  const target = 'api.example.org';
  const inWindow = (k: number) => new Date(now - HOUR + k * 60_000);
  // Node 0: four http probes (one failed); node 1: two pings. Outside the window, and bob's, are left out.
  for (const [k, ms, ok] of [[1, 100, true], [2, 120, true], [3, 140, true], [4, 0, false]] as const) {
    await probed(sql, { user_id: alice.user_id, node_id: nodes[0]!, target, at: inWindow(k), type: 'http', success: ok, ms });
  }
  for (const k of [5, 6]) await probed(sql, { user_id: alice.user_id, node_id: nodes[1]!, target, at: inWindow(k), type: 'ping', success: true, ms: 30 + k });
  await probed(sql, { user_id: alice.user_id, node_id: nodes[0]!, target, at: new Date(now - 5 * HOUR), type: 'http', success: false, ms: 0 });
  await probed(sql, { user_id: bob.user_id, node_id: nodes[0]!, target, at: inWindow(7), type: 'http', success: false, ms: 0 });

  await sql`INSERT INTO entitlements (id, user_id, kind, status, balance, source) VALUES (${newId('entitlement')}, ${alice.user_id}, 'report_pack', 'active', 1, 'test')`;
  const r = await call(app, 'POST', '/v1/verdict/orders', { token: alice.access_token, body: {
    template: 'outage_window', target, time_window_start: new Date(now - 2 * HOUR).toISOString(), time_window_end: new Date(now).toISOString(),
  } });
  t.equal(r.status, 201, JSON.stringify(r.body));
  t.same(await runVerdictGeneration(deps), { claimed: 1, completed: 1 });
  const res = await app.request(`/v1/verdict/orders/${r.body.data.order_id}/pdf`, { headers: { authorization: `Bearer ${alice.access_token}` } });
  t.equal(res.status, 200);
  const pdf = Buffer.from(await res.arrayBuffer());

  const dir = await mkdtemp(join(tmpdir(), 'verdict-probes-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'r.pdf'), pdf);
  const text = (await run('pdftotext', ['-layout', join(dir, 'r.pdf'), '-'])).stdout;
  if (process.env.VERDICT_PDF_KEEP) await writeFile(process.env.VERDICT_PDF_KEEP, pdf);
  t.match(text, /Ad-hoc probe results\s+6\b/, 'six results counted: the window\'s, alice\'s');
  t.match(text, /Ad-hoc probes of the target/);
  t.match(text, new RegExp(`${nodes[0]}\\s+\\S+\\s+http\\s+4\\s+1\\s+25\\.00 %\\s+120 ms\\s+140 ms\\s+140 ms\\s+140 ms`), 'node 0: 4 http results, 1 failure, percentiles of the successful ones');
  t.match(text, new RegExp(`${nodes[1]}\\s+\\S+\\s+ping\\s+2\\s+0\\s+0\\.00 %\\s+35 ms\\s+36 ms`), 'node 1: 2 pings');
  const v = await (await app.request('/v1/attest/verify', { method: 'POST', headers: { 'content-type': 'application/pdf' }, body: pdf })).json() as { valid: boolean };
  t.equal(v.valid, true, 'the report is signed as every other');
});
