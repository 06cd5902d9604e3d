/**
 * The main job (README command 1): on a fresh machine, with the embedded database, start the
 * control plane and three local probe nodes, run a multi-node probe of every type against local
 * targets and print node results and summaries as tables with progress while waiting; then, all
 * through the public API, create monitors of several types (http, keyword, tcp, dns, and ping as
 * root) on every node with 10 s rounds, show a live monitor-by-node status table, take one target
 * down and show its alert arriving at a local webhook receiver that verifies the signature, mend
 * it and show the resolve notification; then leave the API up (base URL, an API key and curls to
 * paste) until interrupted. Fast rounds come from the operator setting
 * VANTAGE_MONITOR_EXTRA_INTERVALS_S (docs/api/monitors.md "Create and update").
 *
 * Options: `--once` exits after the resolve (used by test/demo.test.ts); `--port N` (default
 * VANTAGE_PORT or 8080, the next free port when taken); `--nodes N` (default 3, max 9).
 * Without root, ping and traceroute (raw ICMP sockets) and the ping monitor are skipped and the
 * output says so.
 * State lives in `.data/demo/` and is wiped at each start: this is a demo, not a deployment. Its empty
 * embedded database is copied from `.data/cache/`, where initdb ran once (database.ts).
 */
import { existsSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Api } from './api.js';
import { ROOT, startChild, waitFor, type Child } from './processes.js';
import { DEMO_INTERVAL_S, runMonitoringDemo } from './monitoring.js';
import { progress, renderTask } from './render.js';
import { readStatus, renderStatus } from './status.js';
import { startTargets } from './targets.js';
import { prepareDemoDatabase } from './database.js';
import { peakRssMiB, StartupTiming } from './timing.js';

const LOCATIONS = [
  { label: 'demo-fra', country_code: 'DE' }, { label: 'demo-tyo', country_code: 'JP' }, { label: 'demo-nyc', country_code: 'US' },
  { label: 'demo-sin', country_code: 'SG' }, { label: 'demo-gru', country_code: 'BR' }, { label: 'demo-lhr', country_code: 'GB' },
  { label: 'demo-bom', country_code: 'IN' }, { label: 'demo-cdg', country_code: 'FR' }, { label: 'demo-pek', country_code: 'CN' },
];

const USAGE = `usage: pnpm start [--once] [--port N] [--nodes N]

Starts the control plane on an embedded database and N local probe nodes, runs a probe of every
type on all of them against local targets and prints the results; creates monitors of several
types with 10 s rounds and shows their status live; takes one target down and shows its alert
reaching a local webhook receiver, then the resolve; then keeps the API up.

  --once      exit after the alert is resolved (status 0 when every node answered every probe
              and the monitoring part completed)
  --port N    API port on 127.0.0.1 (default VANTAGE_PORT or 8080; the next free one when taken)
  --nodes N   probe nodes to start, 1-${LOCATIONS.length} (default 3)
  --help      print this help`;

function parseOptions(): { once?: boolean; port?: string; nodes?: string } {
  let parsed;
  try {
    parsed = parseArgs({ options: { once: { type: 'boolean' }, port: { type: 'string' }, nodes: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  } catch (err) {
    // node:util's message names the bad option; a stack trace would bury it.
    process.stderr.write(`pnpm start: ${(err as Error).message}\n\n${USAGE}\n`);
    process.exit(2);
  }
  if (parsed.values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const { port, nodes } = parsed.values;
  if (port !== undefined && !(/^\d+$/.test(port) && Number(port) <= 65535)) {
    process.stderr.write(`pnpm start: --port needs a port number (0-65535), got ${JSON.stringify(port)}\n`);
    process.exit(2);
  }
  if (nodes !== undefined && !(/^\d+$/.test(nodes) && Number(nodes) >= 1 && Number(nodes) <= LOCATIONS.length)) {
    process.stderr.write(`pnpm start: --nodes needs a number from 1 to ${LOCATIONS.length}, got ${JSON.stringify(nodes)}\n`);
    process.exit(2);
  }
  return parsed.values;
}

const values = parseOptions();
const node_count = Number(values.nodes ?? 3);
const is_root = process.getuid?.() === 0;
const data_dir = join(ROOT, '.data', 'demo');
const log_dir = join(data_dir, 'logs');
const children: Child[] = [];
let stopping = false;

const say = (line: string) => process.stdout.write(line + '\n');

async function freePort(wanted: number): Promise<number> {
  const tryListen = (port: number) => new Promise<number | null>((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(null));
    s.listen(port, '127.0.0.1', () => { const p = (s.address() as { port: number }).port; s.close(() => resolve(p)); });
  });
  return (await tryListen(wanted)) ?? (await tryListen(0))!;
}

async function stopAll(code: number): Promise<never> {
  stopping = true;
  await Promise.all(children.map((c) => c.stop()));
  process.exit(code);
}

function onChildExit(name: string, code: number | null): void {
  if (stopping) return;
  process.stderr.write(`\n${name} exited unexpectedly (code ${code}); its log: ${join(log_dir, name + '.log')}\n`);
  void stopAll(1);
}

async function main(): Promise<void> {
  rmSync(data_dir, { recursive: true, force: true });
  const port = await freePort(Number(values.port ?? process.env.VANTAGE_PORT ?? 8080));
  const base_url = `http://127.0.0.1:${port}`;
  const bar = progress();

  say(`Vantage demo: control plane + ${node_count} local probe nodes on loopback (logs in ${log_dir})`);
  if (!is_root) say('not root: ping and traceroute need raw ICMP sockets (CAP_NET_RAW) and are skipped; run as root to include them');

  const cp_data_dir = join(data_dir, 'control-plane');
  bar.update('preparing the embedded database…');
  if (!(await prepareDemoDatabase(cp_data_dir))) say('made an empty embedded database once (kept in .data/cache for the next starts)');
  bar.update('starting the control plane (embedded Postgres)…');
  children.push(startChild('control-plane', 'control-plane/bin/control-plane.mjs', [], {
    VANTAGE_PORT: String(port), VANTAGE_HOST: '127.0.0.1', VANTAGE_PUBLIC_URL: base_url,
    VANTAGE_DATA_DIR: cp_data_dir, VANTAGE_LOG_LEVEL: 'warn',
    // The demo's targets are on loopback: let anonymous probes reach them (the deployment's
    // allow-list, docs/api/probes.md).
    VANTAGE_PROBE_ALLOW_CIDRS: '127.0.0.0/8,::1/128', DATABASE_URL: '', VANTAGE_DATABASE_URL: '',
    // The curl line printed at the end probes without a credential, on the demo's shared nodes
    // (docs/api/probes.md "Who may probe"; a team deployment keeps the default, accounts).
    VANTAGE_PUBLIC_PROBES: 'anonymous',
    // Monitor rounds every 10 s instead of at least 60 (the operator setting of
    // docs/api/monitors.md "Create and update"), and every node on each monitor.
    VANTAGE_MONITOR_EXTRA_INTERVALS_S: String(DEMO_INTERVAL_S), VANTAGE_PLAN_NODE_COUNT_MAX: String(Math.max(5, node_count)),
  }, log_dir, onChildExit));
  const control_plane = children[children.length - 1]!;
  const timing = new StartupTiming();
  await waitFor('the control plane', 120_000, async () => (await fetch(`${base_url}/v1/openapi.json`)).ok || null);
  timing.mark('control plane');

  const api = new Api(base_url);
  const email = `demo-${Date.now()}@vantage.local`;
  const password = `demo-${Math.random().toString(36).slice(2)}-pw`;
  const auth = await api.call<{ access_token: string }>('POST', '/v1/auth/register', { email, password });
  api.authorize(auth.access_token);

  for (let i = 0; i < node_count; i++) {
    const loc = LOCATIONS[i]!;
    bar.update(`enrolling node ${i + 1}/${node_count} (${loc.label})…`);
    const { token } = await api.call<{ token: string }>('POST', '/v1/enrollment-tokens', { ...loc, shared: true });
    // The token goes in the environment: a process's arguments are visible to every user (ps).
    children.push(startChild(loc.label, 'node-agent/bin/node-agent.mjs', [
      'run', '--control-plane-url', base_url, '--state-dir', join(data_dir, 'agents', loc.label),
      '--allow-private', '--log-level', 'warn',
    ], { VANTAGE_AGENT_TOKEN: token }, log_dir, onChildExit));
  }
  await waitFor('the nodes to come online', 120_000, async () => {
    const { items } = await api.call<{ items: Array<{ status: string }> }>('GET', '/v1/nodes?status=online');
    bar.update(`waiting for nodes: ${items.length}/${node_count} online…`);
    return items.length >= node_count || null;
  });
  bar.done();
  timing.mark(`${node_count} nodes online`);
  say(`${node_count} nodes online`);

  const targets = await startTargets();
  const probes: Array<{ type: string; body: Record<string, unknown>; extra?: (task: any) => string }> = [
    { type: 'http', body: { target: targets.http_url }, extra: () => `target waits ${targets.http_delay_ms} ms` },
    { type: 'tcp', body: { target: targets.tcp_target } },
    { type: 'dns', body: { target: targets.dns.zone, params: { record_type: 'A', server: targets.dns.server } }, extra: (t) => `pollution_detected ${t.pollution_detected}` },
  ];
  if (is_root) {
    probes.push({ type: 'ping', body: { target: '127.0.0.1', params: { count: 3, interval_ms: 200 } } });
    probes.push({ type: 'traceroute', body: { target: '127.0.0.1', params: { max_hops: 5 } } });
  }
  let failures = 0;
  for (const p of probes) {
    const created = await api.call<{ task_id: string }>('POST', `/v1/probe/${p.type}`, { ...p.body, nodes: { count: node_count } });
    const started = Date.now();
    const task = await waitFor(`the ${p.type} probe`, 90_000, async () => {
      const t = await api.call<any>('GET', `/v1/probe/tasks/${created.task_id}`);
      bar.update(`${p.type}: ${t.node_results.length}/${node_count} nodes answered (${((Date.now() - started) / 1000).toFixed(1)} s)`);
      return t.status === 'completed' || t.status === 'failed' ? t : null;
    }, 150);
    bar.done();
    if (task.summary.fail_count > 0) failures++;
    say(renderTask(p.type, String(p.body.target), task, p.extra?.(task)));
    if (p === probes[0]) {
      timing.mark('first table');
      say(timing.line(control_plane.proc.pid));
    }
  }

  const monitoring = await runMonitoringDemo({ api, node_count, is_root, targets, say });

  if (values.once) {
    await monitoring.close();
    await targets.close();
    const peak_mib = peakRssMiB(control_plane.proc.pid!);
    if (peak_mib !== null) say(`control plane peak memory over the run: ${peak_mib} MiB`);
    say(`\ndone: ${probes.length} probe types on ${node_count} nodes, ${failures} with failed nodes; ${monitoring.monitor_ids.length} monitors up, alert and resolve delivered`);
    await stopAll(failures === 0 ? 0 : 1);
  }
  const status = await readStatus(api, monitoring.monitor_ids).catch(() => null);
  if (status) say(`\n${renderStatus(status)}`);
  const { key } = await api.call<{ key: string }>('POST', '/v1/account/api-keys', { name: 'pnpm start', scopes: ['read', 'write'], expires_days: 1 });
  const auth_header = `-H 'Authorization: Bearer ${key}'`;
  say(`\nThe API is up at ${base_url} (OpenAPI: ${base_url}/v1/openapi.json); the monitors keep running.`);
  say(`An API key for the demo account (read and write, 1 day): ${key}`);
  const console_built = existsSync(join(ROOT, 'control-plane/console/dist/index.html'));
  say(`The web console (docs/console.md): ${base_url}/ (log in as ${email}, password ${password})${console_built ? '' : '; not built yet: pnpm --filter @vantage/console build'}`);
  say('Try:');
  say(`  curl -s ${auth_header} ${base_url}/v1/monitors`);
  say(`  curl -s ${auth_header} '${base_url}/v1/monitors/${monitoring.monitor_ids[0]}/checks?from=-5m'`);
  say(`  curl -s ${auth_header} ${base_url}/v1/monitors/${monitoring.monitor_ids[0]}/uptime`);
  say(`  curl -s ${auth_header} ${base_url}/v1/alert-events`);
  say(`  curl -s -X POST ${base_url}/v1/probe/http -H 'content-type: application/json' -d '{"target":"${targets.http_url}","nodes":{"count":${node_count}}}'`);
  say(`  curl -s ${base_url}/v1/probe/tasks/<task_id>     # poll; or …/stream for server-sent events`);
  monitoring.receiver.onDelivery((r) => say(`receiver got ${r.body?.type}: ${r.body?.data?.title ?? ''} (signature ${r.verified ? 'verified' : 'NOT verified'})`));
  if (process.stdin.isTTY) say(`Press Enter to take the shop's web server down (Enter again: back up); its alerts are printed as the receiver gets them.`);
  say('Ctrl-C stops everything.');
  let toggling = false;
  if (process.stdin.isTTY) process.stdin.on('data', () => {
    if (toggling) return;
    toggling = true;
    const web = monitoring.web;
    const was_up = web.up;
    void (was_up ? web.stop() : web.start()).then(() => say(`shop web server ${was_up ? 'stopped' : 'listening again'}; watch: curl -s ${auth_header} ${base_url}/v1/alert-events`)).finally(() => { toggling = false; });
  });
  const stop = () => { say('\nstopping…'); void Promise.all([targets.close(), monitoring.close()]).finally(() => stopAll(0)); };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err) => {
  process.stderr.write(`\ndemo failed: ${err instanceof Error ? err.message : String(err)}\n`);
  void stopAll(1);
});
