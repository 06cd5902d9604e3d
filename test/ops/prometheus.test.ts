import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { createAgent, openStateDb } from '@vantage/node-agent';
import { runCheck } from '../../node-agent/src/probes/runner.js';
import { quietLog, testConfig } from '../../node-agent/src/connection/test-support/helpers.js';
import { makeToken, waitFor } from '../../control-plane/src/hub/test-harness.js';
import { call, registerUser, testApp } from '../../control-plane/src/test-support/app.js';

/*
 * A real Prometheus (Debian's `prometheus` package, test/env/provision.sh) scrapes a control plane
 * and a real agent's metrics listener on loopback, with bearer tokens, after an ad-hoc tcp probe
 * ran through both: the metric names and labels are read back through Prometheus's query API.
 */

const PROMETHEUS = '/usr/bin/prometheus';
t.test('a real Prometheus scrapes the control plane and an agent', {
  skip: existsSync(PROMETHEUS) ? false : `${PROMETHEUS} is not installed (apt-get install prometheus; test/env/provision.sh installs it)`,
}, main);

async function freePort(): Promise<number> {
  const s: Server = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

async function main(t: Test): Promise<void> {
  const LOOPBACK = ['127.0.0.0/8'];
  const CP_TOKEN = 'control-plane-scrape-token-1';
  const AGENT_TOKEN = 'agent-scrape-token-000001';
  const { app, sql, url } = await testApp(t, { metrics: true, config: { probe_allow_cidrs: LOOPBACK, metrics_token: CP_TOKEN } });
  const user = await registerUser(app);

  const target: Server = createServer((s) => s.end());
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => target.close(() => resolve())));

  const dir = mkdtempSync(join(tmpdir(), 'vantage-prometheus-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const db = openStateDb(join(dir, 'agent'));
  const agent = createAgent({
    db, log: quietLog, runCheck, agent_version: '0.0.0-test', backoff: { min_ms: 50, max_ms: 200 }, capabilities: ['tcp'],
    config: testConfig({ control_plane_url: url, token: await makeToken(sql, { country_code: 'DE', user_id: user.user_id }), allow_cidrs: LOOPBACK, metrics_port: 0, metrics_token: AGENT_TOKEN }),
  });
  const exit = agent.start();
  t.teardown(async () => {
    await agent.stop(0);
    await exit;
    db.close();
  });
  await waitFor(async () => (await sql`SELECT count(*)::int AS n FROM nodes WHERE status = 'online'`)[0]!.n === 1);
  const agentAt = agent.metricsAddress();
  t.ok(agentAt, 'the agent listens for scrapes');

  const probe = await call(app, 'POST', '/v1/probe/tcp', { token: user.access_token, body: { target: `127.0.0.1:${(target.address() as AddressInfo).port}` } });
  if (probe.status !== 202) throw new Error(`probe not created: ${probe.status} ${JSON.stringify(probe.body)}`);
  const task_id = probe.body.data.task_id as string;
  await waitFor(async () => {
    const poll = await call(app, 'GET', `/v1/probe/tasks/${task_id}`);
    if (poll.status !== 200) throw new Error(`poll: ${poll.status} ${JSON.stringify(poll.body)}`);
    return poll.body.data.status === 'completed';
  }, 30_000);

  const port = await freePort();
  writeFileSync(join(dir, 'cp.token'), CP_TOKEN);
  writeFileSync(join(dir, 'agent.token'), AGENT_TOKEN);
  writeFileSync(join(dir, 'prometheus.yml'), [
    'global: { scrape_interval: 1s, scrape_timeout: 1s }',
    'scrape_configs:',
    `  - { job_name: control-plane, authorization: { credentials_file: ${join(dir, 'cp.token')} }, static_configs: [{ targets: ['${new URL(url).host}'] }] }`,
    `  - { job_name: agent, authorization: { credentials_file: ${join(dir, 'agent.token')} }, static_configs: [{ targets: ['127.0.0.1:${agentAt!.port}'] }] }`,
    '',
  ].join('\n'));
  const prom = spawn(PROMETHEUS, [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  prom.stderr.on('data', (d: Buffer) => { log = (log + d.toString()).slice(-20_000); });
  t.teardown(() => new Promise<void>((resolve) => { if (prom.exitCode !== null) return resolve(); prom.once('exit', () => resolve()); prom.kill('SIGTERM'); }));

  const api = async (path: string): Promise<any> => {
    const res = await fetch(`http://127.0.0.1:${port}${path}`);
    return (await res.json() as { data: unknown }).data;
  };
  const query = async (q: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> => (await api(`/api/v1/query?query=${encodeURIComponent(q)}`)).result;
  try {
    await waitFor(async () => {
      const targets = await api('/api/v1/targets').catch(() => null) as { activeTargets: Array<{ health: string }> } | null;
      return targets !== null && targets.activeTargets.length === 2 && targets.activeTargets.every((x) => x.health === 'up');
    }, 60_000);
  } catch (err) {
    throw new Error(`Prometheus did not scrape both targets: ${(err as Error).message}\n${log}`);
  }

  t.test('control plane series as Prometheus stores them', async (t) => {
    const tasks = await query('vantage_probe_task_results_total{job="control-plane",type="tcp",outcome="success"}');
    t.equal(Number(tasks[0]?.value[1]), 1, 'the probe task result');
    t.equal(Number((await query('vantage_results_stored_total{kind="task"}'))[0]?.value[1]), 1);
    t.equal(Number((await query('vantage_hub_nodes_connected'))[0]?.value[1]), 1);
    t.equal(Number((await query('vantage_db_up'))[0]?.value[1]), 1);
    const routes = (await query('sum by (route, status) (vantage_http_requests_total{method="POST"})')).map((s) => `${s.metric.route} ${s.metric.status}`);
    t.ok(routes.includes('/v1/probe/tcp 202'), `probe route by template: ${routes.join(', ')}`);
    t.ok((await query('vantage_http_request_duration_seconds_bucket{le="+Inf"}')).length > 0, 'latency histogram');
    t.ok((await query('vantage_job_lag_seconds{name="rollup"}')).length === 1);
    t.ok((await query('vantage_delivery_queue_depth')).length === 1);
  });

  t.test('agent series as Prometheus stores them', async (t) => {
    const checks = await query('vantage_agent_checks_total{job="agent",kind="task",type="tcp",outcome="success"}');
    t.equal(Number(checks[0]?.value[1]), 1);
    t.equal(Number((await query('vantage_agent_connected'))[0]?.value[1]), 1);
    t.equal(Number((await query('vantage_agent_connections_total'))[0]?.value[1]), 1);
    t.equal((await query('vantage_agent_outbox_depth')).length, 1);
    t.equal((await query('vantage_agent_outbox_oldest_age_seconds')).length, 1);
    t.equal((await query('vantage_agent_reconnects_total')).length, 1);
    t.equal((await query('vantage_agent_clock_offset_seconds')).length, 1);
  });
}
