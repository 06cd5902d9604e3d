import t from 'tap';
import { browserCheckOutputSchema, type NodeCapability } from '@vantage/shared-protocol';
import type { Agent } from '@vantage/node-agent';
import { startRealAgent } from '../../control-plane/src/probes/real-agents.js';
import { readIdentity } from '../../node-agent/src/state/identity.js';
import { CHROMIUM_PATH, SKIP_WITHOUT_CHROMIUM } from '../../node-agent/src/browser/test-support/harness.js';
import { startPageServer } from '../../node-agent/src/browser/test-support/pages.js';
import { makeToken, waitFor } from '../../control-plane/src/hub/test-harness.js';
import { storedChecks } from '../../control-plane/src/checks/test-support.js';
import { startPlacementJob } from '../../control-plane/src/monitors/placement-job.js';
import { call, registerUser, testApp } from '../../control-plane/src/test-support/app.js';

/*
 * Browser monitors end to end with real agents on a real control plane: an agent whose Chromium
 * starts advertises `browser` and is the only one the monitor is placed on; it runs the page load
 * in its own browser pool and the control plane stores the result with the browser metadata.
 */

const LOOPBACK = ['127.0.0.0/8'];
const ROUND_S = 10;

t.test('a browser monitor runs on the node that advertises browser and its result is stored', { skip: SKIP_WITHOUT_CHROMIUM }, async (t) => {
  const { app, sql, url, deps } = await testApp(t, { config: { probe_allow_cidrs: LOOPBACK, plan: 'business' } });
  const user = await registerUser(app);
  const api = (method: string, path: string, body?: unknown) => call(app, method, path, { token: user.access_token, body });
  const pages = await startPageServer();
  t.teardown(() => pages.close());

  /** A real agent; `capabilities` absent = detected (Chromium at CHROMIUM_PATH tried). */
  async function startAgent(country: string, capabilities?: NodeCapability[]): Promise<{ agent: Agent; enrolled: () => boolean; node_id: () => string }> {
    const token = await makeToken(sql, { country_code: country, user_id: user.user_id });
    const { agent, db } = await startRealAgent(t, { url, token, allow_cidrs: LOOPBACK, capabilities, config: { browser_executable: CHROMIUM_PATH } });
    return { agent, enrolled: () => readIdentity(db) !== null, node_id: () => readIdentity(db)!.node_id };
  }

  const withBrowser = await startAgent('DE');
  const without = await startAgent('FR', ['http', 'dns', 'tcp']);
  // The node rows are online once the welcome is sent; each agent stores its identity when the welcome arrives.
  await waitFor(async () => withBrowser.enrolled() && without.enrolled() && (await sql`SELECT count(*)::int AS n FROM nodes WHERE status = 'online'`)[0]!.n === 2, 60_000);
  const caps = new Map((await sql<{ id: string; capabilities: string[] }[]>`SELECT id, capabilities FROM nodes`).map((r) => [r.id, r.capabilities]));
  t.ok(caps.get(withBrowser.node_id())!.includes('browser'), 'the node whose Chromium starts advertises browser');
  t.notOk(caps.get(without.node_id())!.includes('browser'));

  t.equal((await api('POST', '/v1/monitors', { name: 'too often', type: 'browser', target: pages.url('/ok'), interval_s: 60 })).status, 400, 'browser monitors run at most every 300 s');
  const created = await api('POST', '/v1/monitors', {
    name: 'page', type: 'browser', target: pages.url('/ok'), interval_s: 300, node_count: 2,
    config: { assertions: [{ kind: 'text_present', value: 'Hello Vantage' }, { kind: 'element_present', selector: 'h1#title' }] },
  });
  t.equal(created.status, 201);
  const m = created.body.data as { id: string; node_ids: string[] };
  t.same(m.node_ids, [withBrowser.node_id()], 'placed only on the node with browser, though 2 were asked for');

  // Rounds every 10 s instead of 300, so the test need not wait minutes: the change reaches the agent as a delta.
  await sql`UPDATE monitors SET interval_s = ${ROUND_S}, revision = revision + 1 WHERE id = ${m.id}`;
  const job = startPlacementJob({ sql, log: deps.log, config: { ...deps.config, placement_interval_ms: 60_000 } });
  t.teardown(() => job.stop());
  await sql`UPDATE placement_queue SET due_at = now()`;
  await job.runOnce();
  await waitFor(async () => withBrowser.agent.assignments.list().some((a) => a.monitor_id === m.id && a.interval_s === ROUND_S && a.check.type === 'browser'), 30_000);
  t.same(without.agent.assignments.list(), [], 'the node without browser gets no browser assignment');

  const stored = () => storedChecks(sql, sql`s.monitor_id = ${m.id}`);
  await waitFor(async () => (await stored()).length > 0, 90_000);
  const [r] = await stored();
  t.equal(r!.node_id, withBrowser.node_id());
  t.equal(r!.error, null);
  t.equal(r!.success, true, 'the page loaded and every assertion held');
  // Node results are stored compressed in their batch; read back as the history routes read them.
  const parsed = browserCheckOutputSchema.safeParse(r!.output);
  t.ok(parsed.success, 'the stored output is the browser metadata', { issues: parsed.success ? [] : parsed.error.issues.slice(0, 5) });
  if (parsed.success) {
    t.same(parsed.data.assertion_results.map((a) => [a.kind, a.ok]), [['text_present', true], ['element_present', true], ['load_under_ms', true]]);
    t.ok(parsed.data.resources.some((res) => res.url.endsWith('/img.png') && res.status === 200), 'the page\'s resources are reported');
    // Stored as the node wrote it: the artifact path of the uploaded HAR (reads sign it: browser-artifacts.test.ts).
    t.match(parsed.data.har_url, new RegExp(`^/v1/monitors/${m.id}/artifacts/[0-9a-f]{64}$`), 'the HAR uploaded and named by its artifact path');
    t.equal(parsed.data.screenshot_url, '', 'no screenshot configured');
  }
  t.ok(pages.hits.includes('/ok'), 'the page was loaded');
  const rejected = await sql<{ n: number }[]>`SELECT coalesce(sum(results_rejected_total), 0)::int AS n FROM nodes`;
  t.equal(rejected[0]!.n, 0, 'the control plane accepted every result');
});
