/**
 * The small namespace network of the end-to-end benchmark, one L2 segment:
 *
 *   root namespace (control plane, Postgres, this script) 198.19.251.1 ─┐
 *   agent1 198.19.251.11, agent2 .12, agent3 .13 ──────────────────────── br0 in namespace "sw"
 *   target 198.19.251.100 (HTTP :80, answers every request after `target_delay_ms`) ─┘
 *
 * A bridge instead of routers keeps the root namespace untouched apart from one veth with one
 * address (no routes, no forwarding): the control plane needs the real Postgres on the root
 * namespace's 127.0.0.1:5432, and the agents reach it over the veth. Every process is a real one:
 * `control-plane/bin/control-plane.mjs` on a fresh database, `node-agent run` in each agent
 * namespace with an `ent_` token created through the API. Needs root and iproute2.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testDatabase } from '../../../control-plane/src/test-support/db.js';
import { api, benchWorkspace, freePort, stopChild, waitFor, waitForLine } from './network-processes.js';
import { createTopology, type Topology } from '../../netns/topology.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SUBNET = '198.19.251';
const CP_ADDR = `${SUBNET}.1`;
const TARGET_ADDR = `${SUBNET}.100`;
const COUNTRIES = ['DE', 'JP', 'US', 'GB', 'SG'];

/** A running network; `close()` stops every process and deletes the namespaces, the veth and the database. */
export interface E2eNetwork {
  /** The control plane's base URL, e.g. `http://198.19.251.1:41234`. */
  api_url: string;
  node_ids: string[];
  /** `http://198.19.251.100/`: answers 200 after `target_delay_ms`. */
  target_url: string;
  target_delay_ms: number;
  /** Where the processes' logs are. */
  log_dir: string;
  /** Agent namespace names, `agent1`…, for {@link E2eNetwork.exec}. */
  agents: string[];
  /** Run argv inside a namespace of this network (`agent1`, `target`); resolves stdout. @throws Error on a non-zero exit */
  exec(node: string, argv: string[]): Promise<string>;
  close(): Promise<void>;
}

/** The inline target server: HTTP on :80 answering 200 after `delay_ms`; prints `ready`. */
const TARGET_JS = (delay_ms: number) => `
const http = require('node:http');
const s = http.createServer((req, res) => setTimeout(() => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end('ok\\n'); }, ${delay_ms}));
s.listen(80, '${TARGET_ADDR}', () => console.log('ready'));`;

/**
 * Build the network and start everything: namespaces and the root veth, a fresh database, the
 * control plane bound to 198.19.251.1 (allow-list 198.18.0.0/15, anonymous rate limit lifted so
 * the benchmark's polling is not throttled), `agents` enrolled agents (≤ 5), the target.
 * On failure everything made so far is removed and the error rethrown.
 */
export async function startE2eNetwork(opts: { agents: number; target_delay_ms: number }): Promise<E2eNetwork> {
  const { cleanups, close, work, log_dir, env, logTo } = benchWorkspace('e2e-bench-', join(ROOT, 'bench', 'out', 'e2e-logs'));
  try {
    const agents = Array.from({ length: opts.agents }, (_, i) => `agent${i + 1}`);
    const topo: Topology = await createTopology({
      nodes: Object.fromEntries(['sw', 'target', ...agents].map((n) => [n, {}])),
      links: [
        ...agents.map((a, i) => ({ a: 'sw', b: a, b_addrs: [`${SUBNET}.${11 + i}/24`] })),
        { a: 'sw', b: 'target', b_addrs: [`${TARGET_ADDR}/24`] },
      ],
      commands: { sw: ['ip link add br0 type bridge forward_delay 0', ...[...agents, 'target'].map((_, i) => `ip link set eth${i} master br0`), 'ip link set br0 up'] },
    });
    cleanups.push(() => topo.cleanup());
    // The root end of the segment: one veth, deleted with the namespace (and explicitly here).
    const veth = `vb${randomBytes(4).toString('hex')}`;
    const ip = (args: string[]) => { const r = spawnSync('ip', args, { encoding: 'utf8' }); if (r.status !== 0) throw new Error(`ip ${args.join(' ')}: ${r.stderr}`); };
    ip(['link', 'add', veth, 'type', 'veth', 'peer', 'name', 'up0', 'netns', topo.ns('sw')]);
    cleanups.push(() => spawnSync('ip', ['link', 'del', veth], { stdio: 'ignore' }));
    process.once('exit', () => spawnSync('ip', ['link', 'del', veth], { stdio: 'ignore' }));
    ip(['addr', 'add', `${CP_ADDR}/24`, 'dev', veth]);
    ip(['link', 'set', veth, 'up']);
    await topo.run('sw', ['ip', 'link', 'set', 'up0', 'master', 'br0']);
    await topo.run('sw', ['ip', 'link', 'set', 'up0', 'up']);

    const teardowns: Array<() => unknown> = [];
    cleanups.push(async () => { for (const fn of teardowns.reverse()) await fn(); });
    const db = await testDatabase({ teardown: (fn) => void teardowns.push(fn) });
    await db.sql.end({ timeout: 5 }); // the control plane holds its own connections; dropped at close

    const port = await freePort(CP_ADDR);
    const api_url = `http://${CP_ADDR}:${port}`;
    const cp = spawn(process.execPath, [join(ROOT, 'control-plane/bin/control-plane.mjs')], {
      cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...env, VANTAGE_HOST: CP_ADDR, VANTAGE_PORT: String(port), VANTAGE_PUBLIC_URL: api_url, VANTAGE_DATABASE_URL: db.url,
        VANTAGE_DATA_DIR: join(work, 'cp'), VANTAGE_LOG_LEVEL: 'warn', VANTAGE_PROBE_ALLOW_CIDRS: '198.18.0.0/15',
        VANTAGE_RATE_LIMIT_ANONYMOUS: '100000000', VANTAGE_RATE_LIMIT_KEYED: '100000000',
        // Anonymous probes on shared nodes (docs/api/probes.md "Who may probe").
        VANTAGE_PUBLIC_PROBES: 'anonymous',
      },
    });
    logTo(cp, 'control-plane');
    cleanups.push(() => stopChild(cp));
    await waitFor('the control plane', 60_000, async () => ((await fetch(`${api_url}/v1/openapi.json`)).ok ? true : null), 200);

    const { access_token } = await api<{ access_token: string }>(api_url, 'POST', '/v1/auth/register', { email: `bench-${Date.now()}@vantage.test`, password: `bench-${randomBytes(8).toString('hex')}` });
    for (const [i, name] of agents.entries()) {
      const { token } = await api<{ token: string }>(api_url, 'POST', '/v1/enrollment-tokens', { label: `bench-${name}`, country_code: COUNTRIES[i], shared: true }, access_token);
      const child = topo.spawn(name, [process.execPath, join(ROOT, 'node-agent/bin/node-agent.mjs'), 'run',
        '--control-plane-url', api_url, '--token', token, '--state-dir', join(work, name), '--allow-cidrs', '198.18.0.0/15', '--log-level', 'warn'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env });
      logTo(child, name);
      cleanups.push(() => stopChild(child));
    }
    const node_ids = await waitFor('the agents to come online', 90_000, async () => {
      const { items } = await api<{ items: Array<{ id: string }> }>(api_url, 'GET', '/v1/nodes?status=online&page_size=100');
      return items.length >= opts.agents ? items.map((n) => n.id) : null;
    }, 250);

    const target = topo.spawn('target', [process.execPath, '-e', TARGET_JS(opts.target_delay_ms)], { stdio: ['ignore', 'pipe', 'pipe'], env });
    logTo(target, 'target');
    await waitForLine(target, 'ready');
    return {
      api_url, node_ids, target_url: `http://${TARGET_ADDR}/`, target_delay_ms: opts.target_delay_ms, log_dir, agents,
      exec: (node, argv) => topo.run(node, argv), close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
