import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { waitFor } from '../../control-plane/src/hub/test-harness.js';
import { startRealAgent } from './real-agent.js';
import { startProvisioning, type ProvisionReport } from '../../control-plane/src/as-code/provision.js';
import { call, createApiKey, registerUser, testApp } from '../../control-plane/src/test-support/app.js';
import { storedChecks } from '../../control-plane/src/checks/test-support.js';

/*
 * Provisioning at start (VANTAGE_PROVISION_FILES) on a real control plane with real agents: the
 * provisioned monitor is placed on the agents and they run it; a change to the file is applied;
 * a second file with one invalid resource is refused whole (nothing of it applied) while the
 * first stays applied; a removed resource is pruned.
 */

const LOOPBACK = ['127.0.0.0/8'];
const { app, sql, url, deps } = await testApp(t, { config: { probe_allow_cidrs: LOOPBACK, plan: 'business', monitor_extra_intervals_s: [10], billing_plan_quotas: { business: { min_interval_s: 10 } }, delivery_allow_cidrs: LOOPBACK } });
const user = await registerUser(app);
const { key } = await createApiKey(app, user.access_token);
const api = (method: string, path: string) => call(app, method, path, { token: user.access_token });

const target: Server = createServer((s) => s.end());
await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
t.teardown(() => new Promise<void>((resolve) => target.close(() => resolve())));
const port = (target.address() as AddressInfo).port;

const dir = mkdtempSync(join(tmpdir(), 'vantage-provision-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

const startAgent = (country: string) => startRealAgent(t, { url, sql, user_id: user.user_id, country });

const monitorsFile = (interval_s: number, extra = '') => `version: 1
monitor_groups:
  Lab: {}
alert_channels:
  Lab hook:
    type: webhook
    config: { url: "http://127.0.0.1:9/hook", secret: { env: LAB_HOOK_SECRET } }
monitors:
  Loopback tcp:
    type: tcp
    target: "127.0.0.1:${port}"
    interval_s: ${interval_s}
    node_count: 2
    group: Lab
${extra}alert_policies:
  Loopback down: { monitor: Loopback tcp, channels: [Lab hook] }
`;

t.test('provisioned at start, run by real agents, changed on edit, a bad file refused whole, pruned on removal', async (t) => {
  const agents = await Promise.all(['DE', 'FR'].map(startAgent));
  await waitFor(async () => (await sql`SELECT count(*)::int AS n FROM nodes WHERE status = 'online'`)[0]!.n === 2);

  writeFileSync(join(dir, 'lab.yaml'), monitorsFile(10, '  Spare:\n    type: tcp\n    target: "127.0.0.1:9"\n'));
  const reports: ProvisionReport[] = [];
  const provisioning = startProvisioning({
    pattern: join(dir, '*.yaml'), api_key: key, prune: true, poll_ms: 200, base_url: url,
    env: { LAB_HOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwAAAAAAAAAA==' }, log: deps.log,
  });
  provisioning.onPass((r) => reports.push(r));
  t.teardown(() => provisioning.stop());
  await waitFor(async () => reports.length === 1, 60_000);
  t.same(reports[0]!.refused_files, []);
  t.ok(reports[0]!.results.every((r) => r.status === 'done'), JSON.stringify(reports[0]!.results));

  const monitors = (await api('GET', '/v1/monitors')).body.data.items as Array<{ id: string; name: string; node_ids: string[]; interval_s: number }>;
  const m = monitors.find((x) => x.name === 'Loopback tcp')!;
  t.equal(m.node_ids.length, 2, 'placed on both agents');
  await waitFor(async () => agents.every((a) => a.scheduler.monitor_ids.includes(m.id)), 60_000);
  const nodesWithResults = async () => new Set((await storedChecks(sql, sql`s.monitor_id = ${m.id}`)).map((c) => c.node_id)).size;
  await waitFor(async () => (await nodesWithResults()) === 2, 90_000);
  t.pass('both agents ran the provisioned monitor and their results were stored');

  // A second file with one invalid resource: refused whole, logged by resource; the first is unaffected.
  writeFileSync(join(dir, 'broken.yaml'), 'version: 1\nmonitor_groups:\n  Broken group: {}\nmonitors:\n  Broken:\n    type: tcp\n    target: "127.0.0.1:1"\n    interval_s: fast\n');
  await waitFor(async () => reports.length === 2, 60_000);
  t.match(reports[1]!.refused_files, [{ file: join(dir, 'broken.yaml'), issues: [{ kind: 'monitor', name: 'Broken', path: 'monitors.Broken.interval_s' }] }]);
  t.same(reports[1]!.results, [], 'nothing to change in the good file');
  t.notOk(((await api('GET', '/v1/monitor-groups')).body.data as Array<{ name: string }>).some((g) => g.name === 'Broken group'), 'nothing of the bad file applied');

  // An edit: the interval changes and Spare is removed (pruned, being marked from this file).
  writeFileSync(join(dir, 'lab.yaml'), monitorsFile(60));
  await waitFor(async () => reports.length === 3, 60_000);
  t.match(reports[2]!.results, [{ action: 'update', kind: 'monitor', name: 'Loopback tcp', status: 'done' }, { action: 'delete', kind: 'monitor', name: 'Spare', status: 'done' }]);
  const after = (await api('GET', '/v1/monitors')).body.data.items as Array<{ name: string; interval_s: number }>;
  t.same(after.map((x) => [x.name, x.interval_s]), [['Loopback tcp', 60]]);
});
