/**
 * The routed namespace network of the agent HTTP timing benchmark (agent-http-timing-bench.ts):
 *
 *   agentN 198.18.5N.2 ── 198.18.5N.1 router 198.18.60.1 ── 198.18.60.2 target     (probe path, routed)
 *   agentN 198.19.252.1N ── br0 in namespace "sw" ── 198.19.252.1 root namespace   (control path)
 *
 * Each agent namespace has two links: its default route goes through the router (every probe and
 * every curl crosses one forwarding hop), and a second link on a bridge reaches the control plane
 * in the root namespace (which needs the real Postgres on 127.0.0.1:5432). The root namespace gets
 * one veth with one address and no routes, so nothing of the host's own network changes.
 *
 * Every process is a real one: `control-plane/bin/control-plane.mjs` on a fresh database, and per
 * agent the agent bundle built by installer/build-bundle.ts, unpacked and started the way
 * installer/install.sh starts it (`node <bundle>/node-agent.mjs run --config <agent.json>`, the
 * config file holding control_plane_url, token, state_dir, allow_cidrs). The target serves
 * `/bytes/<n>` (n bytes, Content-Length) and `/slow/<ms>` (a short body after ms). Needs root and
 * iproute2.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildBundle } from '../../../installer/build-bundle.js';
import { testDatabase } from '../../../control-plane/src/test-support/db.js';
import { api, benchWorkspace, freePort, stopChild, waitFor, waitForLine } from './network-processes.js';

export { api };
import { createTopology, type Topology } from '../../netns/topology.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MGMT = '198.19.252';
const CP_ADDR = `${MGMT}.1`;
export const TARGET_ADDR = '198.18.60.2';

/** One running agent: its namespace (for curl beside it), node id and its stdout lines as they come. */
export interface BenchAgent {
  name: string;
  node_id: string;
  /** Called with every stdout line of the agent (JSON log lines). */
  onLine(fn: (line: string) => void): void;
}

/** A running network; `close()` stops every process and deletes the namespaces, the veth and the database. */
export interface AgentHttpNetwork {
  /** The control plane's base URL, e.g. `http://198.19.252.1:41234`. */
  api_url: string;
  agents: BenchAgent[];
  /** `http://198.18.60.2`: the target's origin. */
  target_origin: string;
  /** Where the processes' logs are. */
  log_dir: string;
  /** The agent bundle's version folder that was started. */
  bundle_dir: string;
  /** Run argv inside an agent's namespace; resolves stdout. @throws Error on a non-zero exit */
  exec(node: string, argv: string[]): Promise<string>;
  close(): Promise<void>;
}

/** The inline target: `/bytes/<n>` sends n bytes (≤ 8 MiB) with a Content-Length, `/slow/<ms>` answers after ms; prints `ready`. */
const TARGET_JS = `
const http = require('node:http');
const body = Buffer.alloc(8 * 1024 * 1024, 0x61);
const s = http.createServer((req, res) => {
  const [, kind, arg] = (req.url || '/').split('/');
  if (kind === 'bytes') {
    const n = Math.min(body.length, Number(arg) || 0);
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': n });
    res.end(body.subarray(0, n));
  } else if (kind === 'slow') {
    const t = setTimeout(() => res.end('slow\\n'), Number(arg) || 50);
    res.on('close', () => clearTimeout(t));
  } else res.end('ok\\n');
});
s.keepAliveTimeout = 1000;
s.listen(80, '${TARGET_ADDR}', () => console.log('ready'));`;

/**
 * Build the network and start everything: namespaces and the root veth, a fresh database, the
 * control plane bound to 198.19.252.1 (probe allow-list 198.18.0.0/15, rate limits lifted), the
 * agent bundle, `agents` (1–5) bundled agents enrolled with `ent_` tokens made through the API,
 * the target. `agent_log_level` is the agents' `log_level` (`debug` logs each HTTP probe's float
 * timings); `node_args` go before the bundle on the agents' node command line (e.g. `--cpu-prof`).
 * `pin` runs the agents on the CPUs `pin.agents` and the control plane on `pin.others` (taskset
 * lists such as `0` and `1`), so the control plane's work for each task (on a real network it
 * runs elsewhere) does not take the agent's CPU while it measures; the target is not pinned.
 * On failure everything made so far is removed and the error rethrown.
 */
export async function startAgentHttpNetwork(opts: { agents: number; agent_log_level: string; node_args?: string[]; pin?: { agents: string; others: string } | null }): Promise<AgentHttpNetwork> {
  const pinned = (cpus: string | undefined, argv: string[]) => (cpus ? ['taskset', '-c', cpus, ...argv] : argv);
  const { cleanups, close, work, log_dir, env, logTo } = benchWorkspace('agent-http-bench-', join(ROOT, 'bench', 'out', 'agent-http-logs'));
  try {
    const names = Array.from({ length: opts.agents }, (_, i) => `agent${i + 1}`);
    const topo: Topology = await createTopology({
      nodes: Object.fromEntries([['sw', {}], ['router', { router: true }], ['target', {}], ...names.map((n) => [n, {}])]),
      links: [
        ...names.map((a, i) => ({ a: 'sw', b: a, b_addrs: [`${MGMT}.${11 + i}/24`] })),
        ...names.map((a, i) => ({ a: 'router', b: a, a_addrs: [`198.18.${51 + i}.1/24`], b_addrs: [`198.18.${51 + i}.2/24`] })),
        { a: 'router', b: 'target', a_addrs: ['198.18.60.1/24'], b_addrs: [`${TARGET_ADDR}/24`] },
      ],
      routes: { target: ['default via 198.18.60.1'], ...Object.fromEntries(names.map((a, i) => [a, [`default via 198.18.${51 + i}.1`]])) },
      commands: { sw: ['ip link add br0 type bridge forward_delay 0', ...names.map((_, i) => `ip link set eth${i} master br0`), 'ip link set br0 up'] },
    });
    cleanups.push(() => topo.cleanup());
    const veth = `vh${randomBytes(4).toString('hex')}`;
    const ip = (args: string[]) => { const r = spawnSync('ip', args, { encoding: 'utf8' }); if (r.status !== 0) throw new Error(`ip ${args.join(' ')}: ${r.stderr}`); };
    ip(['link', 'add', veth, 'type', 'veth', 'peer', 'name', 'up0', 'netns', topo.ns('sw')]);
    cleanups.push(() => spawnSync('ip', ['link', 'del', veth], { stdio: 'ignore' }));
    process.once('exit', () => spawnSync('ip', ['link', 'del', veth], { stdio: 'ignore' }));
    ip(['addr', 'add', `${CP_ADDR}/24`, 'dev', veth]);
    ip(['link', 'set', veth, 'up']);
    await topo.run('sw', ['ip', 'link', 'set', 'up0', 'master', 'br0']);
    await topo.run('sw', ['ip', 'link', 'set', 'up0', 'up']);

    // The bundle as the control plane would serve it, unpacked as install.sh does.
    const built = await buildBundle({ out_dir: join(work, 'dist') });
    execFileSync('tar', ['-xzf', built.tarball, '-C', work]);
    const bundle_dir = join(work, `vantage-agent-${built.version}`);

    const teardowns: Array<() => unknown> = [];
    cleanups.push(async () => { for (const fn of teardowns.reverse()) await fn(); });
    const db = await testDatabase({ teardown: (fn) => void teardowns.push(fn) });
    await db.sql.end({ timeout: 5 });

    const port = await freePort(CP_ADDR);
    const api_url = `http://${CP_ADDR}:${port}`;
    const [cpFile, ...cpArgs] = pinned(opts.pin?.others, [process.execPath, join(ROOT, 'control-plane/bin/control-plane.mjs')]);
    const cp = spawn(cpFile!, cpArgs, {
      cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...env, VANTAGE_HOST: CP_ADDR, VANTAGE_PORT: String(port), VANTAGE_PUBLIC_URL: api_url, VANTAGE_DATABASE_URL: db.url,
        VANTAGE_DATA_DIR: join(work, 'cp'), VANTAGE_LOG_LEVEL: 'warn', VANTAGE_PROBE_ALLOW_CIDRS: '198.18.0.0/15',
        VANTAGE_RATE_LIMIT_ANONYMOUS: '100000000', VANTAGE_RATE_LIMIT_KEYED: '100000000', VANTAGE_PUBLIC_PROBES: 'anonymous',
      },
    });
    logTo(cp, 'control-plane');
    cleanups.push(() => stopChild(cp));
    await waitFor('the control plane', 60_000, async () => ((await fetch(`${api_url}/v1/openapi.json`)).ok ? true : null), 200);

    const { access_token } = await api<{ access_token: string }>(api_url, 'POST', '/v1/auth/register', { email: `bench-${Date.now()}@vantage.test`, password: `bench-${randomBytes(8).toString('hex')}` });
    const started: Array<{ name: string; child: ChildProcess; listeners: Array<(line: string) => void> }> = [];
    for (const name of names) {
      const { token } = await api<{ token: string }>(api_url, 'POST', '/v1/enrollment-tokens', { label: `bench-${name}`, shared: true }, access_token);
      const config = join(work, `${name}.json`);
      writeFileSync(config, `${JSON.stringify({ control_plane_url: api_url, token, state_dir: join(work, name), allow_cidrs: ['198.18.0.0/15'], log_level: opts.agent_log_level, name }, null, 2)}\n`, { mode: 0o600 });
      const child = topo.spawn(name, pinned(opts.pin?.agents, [process.execPath, ...(opts.node_args ?? []), join(bundle_dir, 'node-agent.mjs'), 'run', '--config', config]), { cwd: join(work), stdio: ['ignore', 'pipe', 'pipe'], env });
      logTo(child, name);
      const listeners: Array<(line: string) => void> = [];
      let rest = '';
      child.stdout!.on('data', (c: Buffer) => {
        const lines = (rest + c.toString()).split('\n');
        rest = lines.pop()!;
        for (const line of lines) for (const fn of listeners) fn(line);
      });
      started.push({ name, child, listeners });
      cleanups.push(() => stopChild(child));
    }
    const nodes = await waitFor('the agents to come online', 90_000, async () => {
      const { items } = await api<{ items: Array<{ id: string; name: string }> }>(api_url, 'GET', '/v1/nodes?status=online&page_size=100');
      return items.length >= opts.agents ? items : null;
    }, 250);
    const agents: BenchAgent[] = started.map((s) => ({
      name: s.name,
      node_id: nodes.find((n) => n.name === s.name)?.id ?? (() => { throw new Error(`no node named ${s.name}`); })(),
      onLine: (fn) => void s.listeners.push(fn),
    }));

    const target = topo.spawn('target', [process.execPath, '-e', TARGET_JS], { stdio: ['ignore', 'pipe', 'pipe'], env });
    logTo(target, 'target');
    await waitForLine(target, 'ready');
    return {
      api_url, agents, target_origin: `http://${TARGET_ADDR}`, log_dir, bundle_dir,
      exec: (node, argv) => topo.run(node, argv), close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
