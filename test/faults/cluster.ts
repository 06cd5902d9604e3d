import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Api } from '../demo/api.js';
import { ROOT } from '../demo/processes.js';
import type { FaultNetwork } from './network.js';
import { freePort, waitUntil } from './ports.js';

/** A child process we can kill -9 and start again with the same arguments. */
export interface Service {
  readonly name: string;
  readonly log_file: string;
  readonly proc: ChildProcess | null;
  /** Start (again); its output is appended to `log_file`. */
  start(): void;
  /** SIGKILL and wait for the exit. No-op when not running. */
  kill9(): Promise<void>;
  /** Last lines of its log (for failure messages). */
  logTail(lines?: number): string;
}

/** What the fault tests run: the control plane (root namespace) and one agent per network host. */
export interface Cluster {
  api: Api;
  base_url: string;
  control_plane: Service;
  /** Agents by host name (`a1`…), each with its state dir and node id. */
  agents: Map<string, Service & { state_dir: string; node_id: string }>;
  /** Wait until the API answers and every agent's node is online (after a (re)start). */
  waitAllOnline(timeout_ms?: number): Promise<void>;
  /** Kill everything and delete the work folder. Idempotent. */
  stop(): Promise<void>;
}

/** Control-plane settings the fault tests rely on (each is a documented VANTAGE_* variable). */
export const CONTROL_PLANE_ENV = {
  // The default interval (4 s: the hub closes a link quiet for 8.5 s, the agent one quiet for 3
  // intervals). A shorter one made a few seconds of starvation on a busy machine look like a
  // dead link; a cut still shows well within the 30 s of scenario 2.
  VANTAGE_HEARTBEAT_INTERVAL_MS: '4000',
  // Short grace so timed-out tasks end quickly (deadline = timeout_ms + grace).
  VANTAGE_TASK_GRACE_MS: '2000',
  VANTAGE_RATE_LIMIT_KEYED: '100000',
  VANTAGE_LOG_LEVEL: 'info',
};

function service(name: string, argv: string[], env: Record<string, string>, log_file: string, spawner: (argv: string[], env: NodeJS.ProcessEnv) => ChildProcess): Service {
  const log = createWriteStream(log_file, { flags: 'a' });
  let proc: ChildProcess | null = null;
  return {
    name,
    log_file,
    get proc() { return proc; },
    start() {
      // A test runner's NODE_OPTIONS (loaders, coverage hooks) must not leak into the services.
      const { NODE_OPTIONS: _ignored, ...inherited } = process.env;
      log.write(`\n==== start ${new Date().toISOString()}\n`);
      proc = spawner(argv, { ...inherited, ...env });
      proc.stdout?.pipe(log, { end: false });
      proc.stderr?.pipe(log, { end: false });
    },
    async kill9() {
      const p = proc;
      if (!p || p.exitCode !== null || p.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        p.once('exit', () => resolve());
        p.kill('SIGKILL');
      });
    },
    logTail(lines = 30) {
      try {
        return readFileSync(log_file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
      } catch {
        return '(no log)';
      }
    },
  };
}

/**
 * Start the control plane on `database_url` bound to the network's root address, register a user,
 * create one `ent_` token per host through the API and start `node-agent run` inside each host's
 * namespace with the result audit on (VANTAGE_AGENT_AUDIT_RESULTS=1, node-agent/src/outbox/audit.ts)
 * and the segment allowed as targets. Resolves when every node is online.
 */
export async function startCluster(net: FaultNetwork, database_url: string): Promise<Cluster> {
  const work = mkdtempSync(join(tmpdir(), 'vantage-faults-'));
  const port = await freePort(net.root_ip);
  const base_url = `http://${net.root_ip}:${port}`;
  const control_plane = service('control-plane', [join(ROOT, 'control-plane/bin/control-plane.mjs')], {
    ...CONTROL_PLANE_ENV,
    VANTAGE_HOST: net.root_ip, VANTAGE_PORT: String(port), VANTAGE_PUBLIC_URL: base_url,
    VANTAGE_DATABASE_URL: database_url, DATABASE_URL: database_url, VANTAGE_DATA_DIR: join(work, 'cp'),
    VANTAGE_PROBE_ALLOW_CIDRS: '198.18.0.0/15',
  }, join(work, 'control-plane.log'), (argv, env) => spawn(process.execPath, argv, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] }));
  const agents: Cluster['agents'] = new Map();
  const stop = async () => {
    await Promise.all([control_plane.kill9(), ...[...agents.values()].map((a) => a.kill9())]);
    if (!process.env.VANTAGE_FAULTS_KEEP) rmSync(work, { recursive: true, force: true });
  };
  try {
    control_plane.start();
    const api = new Api(base_url);
    await waitUntil('the control plane to answer', 90_000, async () => (await fetch(`${base_url}/v1/openapi.json`)).ok || null, 300);
    const auth = await api.call<{ access_token: string }>('POST', '/v1/auth/register', { email: `faults-${Date.now()}@vantage.test`, password: 'faults-test-password-1' });
    api.authorize(auth.access_token);
    for (const host of net.hosts) {
      const { token } = await api.call<{ token: string }>('POST', '/v1/enrollment-tokens', { label: `faults-${host}`, country_code: 'DE' });
      const state_dir = join(work, host);
      const argv = [join(ROOT, 'node-agent/bin/node-agent.mjs'), 'run', '--control-plane-url', base_url, '--token', token,
        '--state-dir', state_dir, '--allow-cidrs', '198.18.0.0/15', '--log-level', 'info'];
      const agent = service(host, argv, { VANTAGE_AGENT_AUDIT_RESULTS: '1' }, join(work, `${host}.log`),
        (a, env) => net.topology.spawn(host, [process.execPath, ...a], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] }));
      agent.start();
      agents.set(host, Object.assign(agent, { state_dir, node_id: '' }));
    }
    const cluster: Cluster = {
      api, base_url, control_plane, agents, stop,
      async waitAllOnline(timeout_ms = 90_000) {
        await waitUntil('every node online', timeout_ms, async () => {
          const { items } = await api.call<{ items: Array<{ id: string; name: string; status: string }> }>('GET', '/v1/nodes?mine=true');
          for (const [host, a] of agents) a.node_id = items.find((n) => n.name === `faults-${host}`)?.id ?? a.node_id;
          return items.filter((n) => n.status === 'online').length >= agents.size && [...agents.values()].every((a) => a.node_id) ? true : null;
        }, 300);
      },
    };
    await cluster.waitAllOnline();
    return cluster;
  } catch (err) {
    const tails = [control_plane, ...agents.values()].map((s) => `--- ${s.name}\n${s.logTail(15)}`).join('\n');
    await stop();
    throw new Error(`${(err as Error).message}\n${tails}`);
  }
}

/** A probe group as GET /v1/probe/tasks/{id} returns it (docs/api/probes.md "Polling"). */
export interface TaskView {
  status: string;
  task_ids: string[];
  node_results: Array<Record<string, any> & { node_id: string; success: boolean; error: string | null; error_class?: string | null }>;
}

/**
 * POST a probe to chosen nodes (`node_ids`), retrying for up to `timeout_ms` while the answer is
 * 503 NODE_OFFLINE: on a busy machine a node that was slow to ack a task.run is out of service
 * for a moment (hub liveness) and is back once it answers. @returns the created probe
 */
export async function postToNodes<T>(api: Api, path: string, body: Record<string, unknown>, timeout_ms = 60_000): Promise<T> {
  const until = Date.now() + timeout_ms;
  for (;;) {
    try {
      return await api.call<T>('POST', path, body);
    } catch (err) {
      if (!/: 503 NODE_OFFLINE/.test((err as Error).message) || Date.now() > until) throw err;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Poll the task until `done(view)` holds (every 300 ms, up to `timeout_ms`). @returns that view */
export function pollTask(api: Api, task_id: string, done: (view: TaskView) => boolean, timeout_ms: number): Promise<TaskView> {
  return waitUntil(`task ${task_id}`, timeout_ms, async () => {
    const view = await api.call<TaskView>('GET', `/v1/probe/tasks/${task_id}`);
    return done(view) ? view : null;
  }, 300);
}

/**
 * Wait until the whole path works again after a fault: a TCP probe to `target` on every node
 * (node_ids) ends with every node successful. Retries while posting fails (control plane or
 * database down, node not back) or a node fails. @returns how many probes it took
 */
export async function waitAllServing(cluster: Cluster, target: string, timeout_ms = 120_000): Promise<number> {
  const node_ids = [...cluster.agents.values()].map((a) => a.node_id);
  let tries = 0;
  await waitUntil('every node to answer a probe', timeout_ms, async () => {
    tries++;
    const { task_id } = await cluster.api.call<{ task_id: string }>('POST', '/v1/probe/tcp', { target, node_ids, params: { timeout_ms: 2000 } });
    const view = await pollTask(cluster.api, task_id, (v) => v.node_results.length === node_ids.length, 30_000);
    return view.node_results.every((r) => r.success) ? true : null;
  }, 1000);
  return tries;
}
