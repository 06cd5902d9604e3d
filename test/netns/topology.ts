import { execFile, spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';

/**
 * A small Linux network built from network namespaces joined by veth links, for tests that need
 * real hosts and routers (docs/architecture/test-network.md). Needs root and iproute2 (`ip netns`); no tc.
 * Use addresses from 198.18.0.0/15 and fd00:7661::/32 only.
 */

/** One host or router. Routers forward IPv4 and IPv6. */
export interface NodeSpec {
  router?: boolean;
}

/** A veth link between nodes `a` and `b`, with CIDR addresses (`198.18.1.2/24`, `fd00:7661:1::2/64`) on each end. */
export interface LinkSpec {
  a: string;
  b: string;
  a_addrs?: string[];
  b_addrs?: string[];
}

export interface TopologySpec {
  nodes: Record<string, NodeSpec>;
  links: LinkSpec[];
  /** Per node, `ip route add` arguments: `default via 198.18.1.1`, `-6 default via fd00:7661:1::1`. */
  routes?: Record<string, string[]>;
  /** Per node, commands run inside its namespace after links and routes (argv split on spaces). */
  commands?: Record<string, string[]>;
}

export interface ExecResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A built topology; always call cleanup() (t.teardown right after creation). */
export interface Topology {
  /** Per-run prefix carried by every namespace name: `vt<pid>x<random>`. */
  readonly prefix: string;
  /** The namespace name of `node`. */
  ns(node: string): string;
  /** The interface name on `node` of its link to `peer` (eth0, eth1 ... in link order). */
  ifname(node: string, peer: string): string;
  /** Run argv inside `node`'s namespace; resolves with the exit code (does not reject on non-zero). */
  exec(node: string, argv: string[], opts?: { timeout_ms?: number; input?: string }): Promise<ExecResult>;
  /** Like exec but rejects with stderr when the exit code is not 0. */
  run(node: string, argv: string[]): Promise<string>;
  /** Start a long-lived process inside `node`'s namespace; cleanup() kills it. */
  spawn(node: string, argv: string[], opts?: SpawnOptions): ChildProcess;
  /** Kill spawned processes and delete every namespace this topology made. Idempotent. */
  cleanup(): Promise<void>;
}

const PREFIX_ROOT = 'vt';
const live = new Set<string>();

function execP(file: string, args: string[], opts: { timeout_ms?: number; input?: string } = {}): Promise<ExecResult> {
  return new Promise((resolve) => {
    const child = execFile(file, args, { timeout: opts.timeout_ms ?? 60_000, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) || (err && !stderr ? err.message : '') });
    });
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}

async function ip(args: string[]): Promise<void> {
  const got = await execP('ip', args);
  if (got.code !== 0) throw new Error(`ip ${args.join(' ')}: ${got.stderr.trim()}`);
}

/** Delete namespaces synchronously (process exit / signal paths). */
function deleteSync(names: Iterable<string>): void {
  for (const name of names) {
    spawnSync('ip', ['netns', 'del', name], { stdio: 'ignore' });
    live.delete(name);
  }
}

let hooked = false;
function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', () => deleteSync([...live]));
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    const onSignal = () => {
      deleteSync([...live]);
      process.off(signal, onSignal);
      // Only re-raise when we were the sole handler: then the default action (exit) is what the
      // process had before we hooked the signal.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

/**
 * Delete namespaces left behind by earlier runs whose process is gone (a test killed with
 * SIGKILL cannot clean up). Only names `vt<pid>x...` with a dead pid are touched.
 */
export async function sweepStaleNamespaces(): Promise<string[]> {
  const listed = await execP('ip', ['netns', 'list']);
  const stale: string[] = [];
  for (const line of listed.stdout.split('\n')) {
    const name = line.split(' ')[0] ?? '';
    const m = new RegExp(`^${PREFIX_ROOT}(\\d+)x[0-9a-f]+-`).exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    try {
      process.kill(pid, 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ESRCH') stale.push(name);
    }
  }
  for (const name of stale) await execP('ip', ['netns', 'del', name]);
  return stale;
}

/**
 * Wait until every veth in namespace `name` is operationally UP and has its IPv6 link-local
 * address: the kernel reports carrier through linkwatch up to a second after `link set up`, and
 * IPv6 neighbour discovery (spoken from link-local) waits for it, which would delay the first
 * IPv6 packets by ~1 s. There is no event to wait on from here, so poll (every 50 ms, up to 10 s).
 */
async function waitLinksReady(name: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const links = (await execP('ip', ['-n', name, '-br', 'link'])).stdout.split('\n').filter((l) => l && !l.startsWith('lo '));
    const addrs = (await execP('ip', ['-n', name, '-6', '-br', 'addr'])).stdout;
    const ready = links.every((l) => {
      const [ifname, state] = l.split(/\s+/);
      const dev = ifname!.split('@')[0]!;
      return state === 'UP' && new RegExp(`^${dev}(@\\S+)?\\s+\\S+\\s+.*fe80::`, 'm').test(addrs);
    });
    if (ready) return;
    if (Date.now() > deadline) throw new Error(`links in ${name} not up after 10 s: ${links.join('; ')}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Build `spec`: one namespace per node (loopback up, ICMP rate limits off so traceroute and
 * unreachable replies are deterministic, IPv6 DAD off, forwarding on for routers), a veth pair per link named
 * eth<N> on each side, addresses (IPv6 without DAD so they are usable at once), routes, then the
 * extra commands. On any failure everything made so far is deleted and the error rethrown.
 */
export async function createTopology(spec: TopologySpec): Promise<Topology> {
  hookExit();
  await sweepStaleNamespaces();
  const prefix = `${PREFIX_ROOT}${process.pid}x${randomBytes(3).toString('hex')}`;
  const names = new Map<string, string>();
  const ifnames = new Map<string, string>();
  const children = new Set<ChildProcess>();
  const made: string[] = [];
  const ns = (node: string): string => {
    const name = names.get(node);
    if (!name) throw new Error(`unknown node ${node}`);
    return name;
  };

  const exec: Topology['exec'] = (node, argv, opts) => execP('ip', ['netns', 'exec', ns(node), ...argv], opts);
  let cleaned = false;
  const topology: Topology = {
    prefix,
    ns,
    ifname(node, peer) {
      const name = ifnames.get(`${node}>${peer}`);
      if (!name) throw new Error(`no link ${node} - ${peer}`);
      return name;
    },
    exec,
    async run(node, argv) {
      const got = await exec(node, argv);
      if (got.code !== 0) throw new Error(`[${node}] ${argv.join(' ')} exited ${got.code}: ${got.stderr.trim()}`);
      return got.stdout;
    },
    spawn(node, argv, opts = {}) {
      const child = spawn('ip', ['netns', 'exec', ns(node), ...argv], opts);
      children.add(child);
      child.once('exit', () => children.delete(child));
      return child;
    },
    async cleanup() {
      if (cleaned) return;
      cleaned = true;
      await Promise.all([...children].map((child) => new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      })));
      for (const name of made) {
        await execP('ip', ['netns', 'del', name]);
        live.delete(name);
      }
    },
  };

  try {
    for (const [node, nodeSpec] of Object.entries(spec.nodes)) {
      const name = `${prefix}-${node}`;
      await ip(['netns', 'add', name]);
      made.push(name);
      live.add(name);
      names.set(node, name);
      await ip(['-n', name, 'link', 'set', 'lo', 'up']);
      // No DAD: link-local addresses (which neighbour discovery speaks from) are usable at once
      // instead of after ~2 s, so the first IPv6 packets are not delayed.
      const sysctls: [string, number][] = [['ipv4/icmp_ratelimit', 0], ['ipv6/icmp/ratelimit', 0], ['ipv6/conf/all/accept_dad', 0], ['ipv6/conf/default/accept_dad', 0]];
      if (nodeSpec.router) sysctls.push(['ipv4/ip_forward', 1], ['ipv6/conf/all/forwarding', 1]);
      // Written through /proc (per namespace under `ip netns exec`), so procps' sysctl is not needed.
      await topology.run(node, ['sh', '-c', sysctls.map(([key, value]) => `echo ${value} > /proc/sys/net/${key}`).join(' && ')]);
    }
    const count = new Map<string, number>();
    const nextIf = (node: string) => {
      const n = count.get(node) ?? 0;
      count.set(node, n + 1);
      return `eth${n}`;
    };
    for (const link of spec.links) {
      const aIf = nextIf(link.a);
      const bIf = nextIf(link.b);
      ifnames.set(`${link.a}>${link.b}`, aIf);
      ifnames.set(`${link.b}>${link.a}`, bIf);
      await ip(['-n', ns(link.a), 'link', 'add', aIf, 'type', 'veth', 'peer', 'name', bIf, 'netns', ns(link.b)]);
      for (const [node, ifname, addrs] of [[link.a, aIf, link.a_addrs], [link.b, bIf, link.b_addrs]] as const) {
        for (const cidr of addrs ?? []) {
          await ip(['-n', ns(node), 'addr', 'add', cidr, 'dev', ifname, ...(cidr.includes(':') ? ['nodad'] : [])]);
        }
        await ip(['-n', ns(node), 'link', 'set', ifname, 'up']);
      }
    }
    for (const [node, routes] of Object.entries(spec.routes ?? {})) {
      for (const route of routes) {
        const args = route.trim().split(/\s+/);
        const family = args[0] === '-6' || args[0] === '-4' ? [args.shift()!] : [];
        await ip(['-n', ns(node), ...family, 'route', 'add', ...args]);
      }
    }
    for (const [node, commands] of Object.entries(spec.commands ?? {})) {
      for (const command of commands) await topology.run(node, command.trim().split(/\s+/));
    }
    for (const name of made) await waitLinksReady(name);
  } catch (err) {
    await topology.cleanup();
    throw err;
  }
  return topology;
}

/** Names of the namespaces that currently exist with `prefix` (for tests of cleanup). */
export async function listNamespaces(prefix: string): Promise<string[]> {
  const listed = await execP('ip', ['netns', 'list']);
  return listed.stdout.split('\n').map((l) => l.split(' ')[0] ?? '').filter((n) => n.startsWith(`${prefix}-`));
}
