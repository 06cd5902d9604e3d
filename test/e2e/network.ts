import { spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildBundle } from '../../installer/build-bundle.js';
import { createTopology, type ExecResult, type Topology } from '../netns/topology.js';
import { addressPlan, claimSlot, type AddressPlan } from './addresses.js';
import { linkRoot, topologySpec } from './layout.js';
import { installAgent, type InstalledAgent } from './agents.js';
import { call } from './client.js';
import { cleanEnv, controlPlaneProcess, createDatabase, REPO } from './control-plane.js';
import { makeTargetsPki } from './pki.js';
import type { TargetsHostConfig } from './targets-host.js';

/**
 * The end-to-end test network (docs/architecture/test-network.md):
 *
 *   root namespace (control plane) ── r1 ──┬── agent hosts a0, a1, a2 (one subnet each)
 *                                          └── r2 ── targets host (HTTP, HTTPS, DNS, TCP)
 *
 * The control-plane host is the root namespace: the control plane runs there as a real child
 * process on a fresh Postgres database, bound to the root end of a veth into r1. Every agent is
 * installed on its host with the real installer and an `ent_` token created through the API.
 */

interface Teardown { teardown(fn: () => unknown): void }

/** Countries (and labels) of the agent hosts, in order; the token declares them. */
export const AGENT_COUNTRIES = ['DE', 'JP', 'US', 'FR', 'BR', 'SG'] as const;
/** Agents' and the control plane's allow-list: the test network's ranges (docs/architecture/test-network.md). */
export const ALLOW_CIDRS = ['198.18.0.0/15', 'fd00:7661::/32'];
export const CONTROL_PLANE_PORT = 8080;
/** The targets host's switchable HTTPS port, its switch server's loopback port, its DNSBL zone. */
const SWITCH_HTTPS_PORT = 8443;
const SWITCH_CONTROL_PORT = 9099;
const DNSBL_ZONE = 'bl.e2e.test';

export interface TestNetworkOptions {
  /** Agent hosts, 1-6 (default 3). */
  agent_count?: number;
  /** Extra control-plane environment (VANTAGE_TASK_GRACE_MS, VANTAGE_HEARTBEAT_INTERVAL_MS, …). */
  control_plane_env?: Record<string, string>;
  /** Use this database instead of a fresh one on the test server (e.g. a test's own Postgres). */
  database_url?: string;
}

/** One agent host and its node. */
export interface TestNode {
  /** Node id (`n_…`) printed by the installer. */
  id: string;
  /** Node name (the token label, `e2e-de` …) and declared country. */
  name: string;
  country: string;
  /** Topology node name (`a0` …) and namespace name. */
  host: string;
  ns: string;
  address: { v4: string; v6: string };
  /** r1's addresses on this host's link (gateway and first traceroute hop). */
  gateway: { v4: string; v6: string };
  state_dir: string;
  /** VANTAGE_ROOT of the installation, and the service log. */
  root: string;
  log_file: string;
  /** The agent's current pid, or null while it is not running. */
  pid(): number | null;
}

/** What the targets host serves (docs/architecture/test-network.md lists the routes). */
export interface Targets {
  v4: string;
  v6: string;
  /** `http://198.19.1.10`, `https://198.19.1.10` (no trailing slash). */
  http_origin: string;
  https_origin: string;
  /** The DNS server for `params.server`. */
  dns_server: string;
  /** `host:port` with something listening, and with nothing listening (refused). */
  tcp_open: string;
  tcp_closed: string;
  /** A name whose A answer differs for one agent (`polluted_node`), and one answered the same for all. */
  split: { name: string; answer: string; polluted_answer: string; polluted_node: number };
  same: { name: string; answer: string };
  /** PEM of the test CA the agents trust, and its common name (the leaf's issuer). */
  ca_cert: string;
  ca_name: string;
  /** r2's address on the r1–r2 link: the second traceroute hop from every agent. */
  r2: { v4: string; v6: string };
  /** `host:port` of the switchable HTTPS server (the valid leaf until `switchTarget('/tls/expired')`). */
  tls_switch: string;
  /** A name whose A answer the tests change (`switchTarget('/dns', …)`); it starts as `answer`. */
  mutable: { name: string; answer: string };
  /** The test DNSBL zone the targets' DNS server answers for (nothing listed at first). */
  dnsbl_zone: string;
}

/** A switch of the targets host (test/e2e/targets-switches.ts lists them). */
export type TargetSwitch = '/http/stop' | '/http/start' | '/http/deny' | '/http/allow' | '/tls/expired' | '/tls/valid' | '/dns' | '/dnsbl/list' | '/dnsbl/unlist';

export interface TestNetwork {
  /** Base URL of the control plane (`http://198.18.<16·slot>.1:8080`). */
  api_url: string;
  /** Bearer token of the user who created the enrollment tokens (owner of every node). */
  owner_token: string;
  nodes: TestNode[];
  targets: Targets;
  plan: AddressPlan;
  topology: Topology;
  /**
   * Flip a switch of the targets host (stop/start HTTP, expired/valid certificate, a DNS answer, a
   * DNSBL listing) and resolve once it is done. @throws Error with the switch server's answer
   */
  switchTarget(op: TargetSwitch, params?: Record<string, string>): Promise<void>;
  /** Run argv inside a topology node (`a0`, `r1`, `targets` …). */
  exec(host: string, argv: string[], opts?: { timeout_ms?: number }): Promise<ExecResult>;
  /** kill -9 (or `signal`) agent i; resolves once it is gone. */
  killAgent(i: number, signal?: NodeJS.Signals): Promise<void>;
  /** Start agent i again through its service (stand-in systemctl). */
  startAgent(i: number): Promise<void>;
  /** Silently drop everything between agent i and the rest of the network at r1 (blackhole rules), and undo it. */
  cutLink(i: number): Promise<void>;
  restoreLink(i: number): Promise<void>;
  /** Stop the control plane with `signal` (default SIGTERM; SIGKILL for a crash); resolves once it has exited. */
  stopControlPlane(signal?: NodeJS.Signals): Promise<void>;
  /**
   * Start it again on the same address, database and instance id (so its crash recovery takes
   * the nodes it held offline). Unless `wait_nodes: false`, also waits until every node whose
   * agent runs has reconnected (online, seen since this start: a row left `online` by a killed
   * instance does not count). `env` changes settings from this start on (ControlPlaneProcess.start).
   */
  startControlPlane(opts?: { wait_nodes?: boolean; env?: Record<string, string> }): Promise<void>;
  /**
   * Resolve when GET /v1/nodes shows every node (or those in `ids`) with `status` (online,
   * offline …) and, with `since_ms` (epoch ms), a `last_seen_at` not older than that.
   * @throws after timeout_ms (default 120 s)
   */
  waitStatus(status: string, ids?: string[], timeout_ms?: number, since_ms?: number): Promise<void>;
  /** waitStatus('online', ids, timeout_ms). */
  waitOnline(ids?: string[], timeout_ms?: number): Promise<void>;
  /** Where logs are: the control plane's and the targets host's (agents: nodes[i].log_file). */
  logs: { control_plane: string; targets: string };
  /** Tear everything down; idempotent, also registered with t.teardown. */
  cleanup(): Promise<void>;
}

/** Start targets-host.ts in the targets namespace; resolves once it prints its ready line. */
function startTargetsHost(topology: Topology, config_file: string, log_file: string): Promise<ChildProcess> {
  const child = topology.spawn('targets', [process.execPath, '--import', 'tsx', join(REPO, 'test', 'e2e', 'targets-host.ts'), config_file], {
    cwd: join(REPO, 'test'), env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => { err += d.toString(); writeFileSync(log_file, err); });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('"ready":true')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`targets host exited ${code}: ${err}`)));
  });
}

/**
 * Build the network, start the control plane and the targets, install and enroll the agents, and
 * wait until every node is online (about 10-20 s). Everything is torn down at `t.teardown`
 * (namespaces also on process exit, see test/netns/topology.ts). Needs root, iproute2, curl and
 * the test Postgres (test/env/postgres.sh).
 * @throws Error naming the step that failed (everything made so far is cleaned up)
 */
export async function startTestNetwork(t: Teardown, opts: TestNetworkOptions = {}): Promise<TestNetwork> {
  const agent_count = opts.agent_count ?? 3;
  const claim = claimSlot();
  const plan = addressPlan(claim.slot, agent_count);
  const dir = mkdtempSync(join(tmpdir(), 'vantage-e2e-'));
  chmodSync(dir, 0o755); // the agents run as nobody and read the CA file here
  const undo: Array<() => unknown> = [];
  let cleaned = false;
  const cleanup = async () => {
    if (cleaned) return;
    cleaned = true;
    for (const step of undo.reverse()) {
      try { await step(); } catch { /* keep tearing down */ }
    }
    if (process.env.VANTAGE_E2E_KEEP) process.stderr.write(`test network: run folder kept at ${dir}\n`);
    else rmSync(dir, { recursive: true, force: true });
    claim.release();
  };
  t.teardown(cleanup);
  // A test process that exits without its teardown (uncaught error, signal) must not leave the
  // agents (started with setsid, so not our children) or the control plane running.
  const pids = new Set<() => number | null>();
  const onExit = () => { for (const pid of pids) { const n = pid(); if (n) try { process.kill(n, 'SIGKILL'); } catch { /* gone */ } } };
  process.on('exit', onExit);
  undo.push(() => process.off('exit', onExit));

  try {
    const topology = await createTopology(topologySpec(plan));
    undo.push(() => topology.cleanup());
    const root_if = linkRoot(topology, plan);
    undo.push(() => spawnSync('ip', ['link', 'del', root_if], { stdio: 'ignore' }));

    const pki = await makeTargetsPki(['targets.e2e.test'], [plan.targets_v4, plan.targets_v6]);
    // chmod, not writeFileSync's mode: that one is cut by the umask, and under umask 077 the agents
    // (running as nobody) could not read the CA file.
    const file = (name: string, text: string, mode = 0o644) => { const p = join(dir, name); writeFileSync(p, text); chmodSync(p, mode); return p; };
    const ca_file = file('ca.pem', pki.ca_cert);
    const split = { name: 'split.e2e.test', answer: '198.19.1.10', polluted_answer: '198.19.1.66', polluted_node: Math.min(2, agent_count - 1) };
    const same = { name: 'same.e2e.test', answer: '198.19.1.10' };
    const mutable = { name: 'status.e2e.test', answer: '198.19.1.10' };
    const polluted = plan.agents[split.polluted_node]!;
    const config: TargetsHostConfig = {
      hosts: [plan.targets_v4, plan.targets_v6], http_port: 80, https_port: 443, dns_port: 53, tcp_open_port: 7000, tcp_closed_port: 7001,
      cert_file: file('targets.crt', pki.leaf.cert), key_file: file('targets.key', pki.leaf.key, 0o600),
      dns_names: [
        { name: split.name, type: 'A', answer: split.answer, views: [{ cidr: polluted.subnet_v4, answer: split.polluted_answer }, { cidr: polluted.subnet_v6, answer: split.polluted_answer }] },
        { name: same.name, type: 'A', answer: same.answer },
        { name: mutable.name, type: 'A', answer: mutable.answer },
      ],
      switch_https_port: SWITCH_HTTPS_PORT, control_port: SWITCH_CONTROL_PORT, dnsbl_zone: DNSBL_ZONE,
      expired_cert_file: file('expired.crt', pki.expired_leaf.cert), expired_key_file: file('expired.key', pki.expired_leaf.key, 0o600),
    };
    const logs = { control_plane: join(dir, 'control-plane.log'), targets: join(dir, 'targets.log') };

    const db = opts.database_url ? null : await createDatabase();
    if (db) undo.push(() => db.drop());
    const cp = controlPlaneProcess({
      host: plan.root_v4, port: CONTROL_PLANE_PORT, database_url: opts.database_url ?? db!.url, log_file: logs.control_plane,
      env: {
        VANTAGE_PROBE_ALLOW_CIDRS: ALLOW_CIDRS.join(','), VANTAGE_INSTALL_BUNDLE_DIR: join(dir, 'dist'),
        // Stable across restarts (the default is hostname-pid): crash recovery at start then takes
        // the nodes the killed process held offline at once (control-plane/src/hub/hub.ts).
        VANTAGE_INSTANCE_ID: `e2e-slot-${plan.slot}`,
        // The tests' polling and load come from one address: keep the anonymous limit out of the way.
        VANTAGE_RATE_LIMIT_ANONYMOUS: '1000000', VANTAGE_RATE_LIMIT_KEYED: '1000000',
        // The tests probe anonymously, as a public service would (docs/api/probes.md "Who may probe").
        VANTAGE_PUBLIC_PROBES: 'anonymous',
        ...opts.control_plane_env,
      },
    });
    undo.push(() => cp.stop());
    pids.add(cp.pid);
    await Promise.all([
      buildBundle({ out_dir: join(dir, 'dist') }),
      startTargetsHost(topology, file('targets.json', JSON.stringify(config)), logs.targets),
      cp.start(),
    ]);

    const email = `e2e-${randomBytes(4).toString('hex')}@vantage.test`;
    const { access_token } = await call<{ access_token: string }>(cp.url, 'POST', '/v1/auth/register', { email, password: `e2e-${randomBytes(8).toString('hex')}-Pw1` });
    const agents: InstalledAgent[] = [];
    undo.push(() => Promise.all(agents.map((a) => a.kill('SIGKILL'))));
    const installed = await Promise.all(plan.agents.map(async (_, i) => {
      const country = AGENT_COUNTRIES[i]!;
      const { token } = await call<{ token: string }>(cp.url, 'POST', '/v1/enrollment-tokens', { label: `e2e-${country.toLowerCase()}`, country_code: country, shared: true }, access_token);
      const root = join(dir, `a${i}`);
      mkdirSync(root);
      chmodSync(root, 0o755); // whatever the umask: the agent runs as nobody below this folder
      mkdirSync(join(root, 'run', 'systemd', 'system'), { recursive: true });
      const agent = await installAgent({ ns: topology.ns(`a${i}`), root, base_url: cp.url, token, allow_cidrs: ALLOW_CIDRS, ca_file });
      agents[i] = agent;
      pids.add(agent.pid);
      return agent;
    }));

    const nodes: TestNode[] = installed.map((agent, i) => ({
      id: agent.node_id, name: `e2e-${AGENT_COUNTRIES[i]!.toLowerCase()}`, country: AGENT_COUNTRIES[i]!,
      host: `a${i}`, ns: topology.ns(`a${i}`),
      address: { v4: plan.agents[i]!.v4, v6: plan.agents[i]!.v6 },
      gateway: { v4: plan.agents[i]!.gateway_v4, v6: plan.agents[i]!.gateway_v6 },
      state_dir: agent.state_dir, root: agent.root, log_file: agent.log_file, pid: agent.pid,
    }));

    const waitStatus: TestNetwork['waitStatus'] = async (status, ids = nodes.map((n) => n.id), timeout_ms = 120_000, since_ms = 0) => {
      const deadline = Date.now() + timeout_ms;
      for (;;) {
        const listed = await call<{ items: Array<{ id: string; status: string; last_seen_at: string | null }> }>(cp.url, 'GET', '/v1/nodes?page_size=200').catch(() => ({ items: [] }));
        const fresh = (n: { last_seen_at: string | null }) => since_ms === 0 || (n.last_seen_at !== null && Date.parse(n.last_seen_at) >= since_ms);
        const there = new Set(listed.items.filter((n) => n.status === status && fresh(n)).map((n) => n.id));
        if (ids.every((id) => there.has(id))) return;
        if (Date.now() > deadline) throw new Error(`nodes not ${status} after ${timeout_ms} ms: ${ids.filter((id) => !there.has(id)).join(', ')}`);
        // Node status changes are not pushed to API clients: poll.
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    const waitOnline: TestNetwork['waitOnline'] = (ids, timeout_ms) => waitStatus('online', ids, timeout_ms);
    await waitOnline();

    const rules = (i: number, verb: 'add' | 'del') => {
      const a = plan.agents[i]!;
      return [
        ['-4', 'rule', verb, 'from', a.v4, 'blackhole', 'priority', String(100 + 4 * i)],
        ['-4', 'rule', verb, 'to', a.v4, 'blackhole', 'priority', String(101 + 4 * i)],
        ['-6', 'rule', verb, 'from', a.v6, 'blackhole', 'priority', String(102 + 4 * i)],
        ['-6', 'rule', verb, 'to', a.v6, 'blackhole', 'priority', String(103 + 4 * i)],
      ];
    };
    const agentAt = (i: number) => {
      const agent = agents[i];
      if (!agent) throw new Error(`no agent ${i} (there are ${agents.length})`);
      return agent;
    };

    return {
      api_url: cp.url,
      owner_token: access_token,
      nodes,
      plan,
      topology,
      logs,
      targets: {
        v4: plan.targets_v4, v6: plan.targets_v6,
        http_origin: `http://${plan.targets_v4}`, https_origin: `https://${plan.targets_v4}`,
        dns_server: plan.targets_v4, tcp_open: `${plan.targets_v4}:7000`, tcp_closed: `${plan.targets_v4}:7001`,
        split, same, ca_cert: pki.ca_cert, ca_name: pki.ca_name,
        r2: { v4: plan.r2_v4, v6: plan.r2_v6 },
        tls_switch: `${plan.targets_v4}:${SWITCH_HTTPS_PORT}`, mutable, dnsbl_zone: DNSBL_ZONE,
      },
      switchTarget: async (op, params = {}) => {
        const url = `http://127.0.0.1:${SWITCH_CONTROL_PORT}${op}?${new URLSearchParams(params).toString()}`;
        const got = await topology.exec('targets', ['curl', '-sS', '-m', '10', '-X', 'POST', url]);
        if (got.code !== 0 || !got.stdout.includes('"ok":true')) throw new Error(`targets switch ${op} ${JSON.stringify(params)}: ${got.stdout} ${got.stderr}`);
      },
      exec: (host, argv, o) => topology.exec(host, argv, o),
      killAgent: (i, signal) => agentAt(i).kill(signal),
      startAgent: (i) => agentAt(i).start(),
      cutLink: async (i) => { agentAt(i); for (const r of rules(i, 'add')) await topology.run('r1', ['ip', ...r]); },
      restoreLink: async (i) => { agentAt(i); for (const r of rules(i, 'del')) await topology.exec('r1', ['ip', ...r]); },
      stopControlPlane: (signal) => cp.stop(signal),
      startControlPlane: async ({ wait_nodes = true, env } = {}) => {
        const started_ms = Date.now();
        await cp.start(env);
        if (wait_nodes) await waitStatus('online', nodes.filter((n) => n.pid() !== null).map((n) => n.id), 120_000, started_ms);
      },
      waitOnline,
      waitStatus,
      cleanup,
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}
