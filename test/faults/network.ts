import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createTopology, type Topology } from '../netns/topology.js';

const run = promisify(execFile);

/**
 * The fault tests' network: one layer-2 segment, a bridge in namespace `sw`, joining the root
 * namespace (control plane, its Postgres, the test's targets) and one namespace per agent host.
 *
 * ```
 *  root ns: 198.19.S.1 (veth vf<pid>) ─┐
 *  agent a1: 198.19.S.11 eth0 ─────────┤ br0 in ns `sw`
 *  agent a2: 198.19.S.12 eth0 ─────────┤
 *  agent a3: 198.19.S.13 eth0 ─────────┘
 * ```
 * One flat /24, so no routes or forwarding anywhere. Each agent host also holds 198.19.S.1NN/32
 * on its loopback: a target that stays reachable from that host while its link is cut.
 * S is picked from the pid (200-249) so two runs on one machine rarely collide; addresses come
 * from the benchmarking range (RFC 2544, 198.18.0.0/15) as docs/architecture/test-network.md says.
 */
export interface FaultNetwork {
  topology: Topology;
  /** The root namespace's address: the control plane binds here, targets listen here. */
  root_ip: string;
  /** CIDR of the segment (for allow-lists). */
  cidr: string;
  /** Agent host names (`a1`…) in order. */
  hosts: string[];
  /** Each host's address on the segment. */
  host_ip(host: string): string;
  /** Each host's loopback-only address (reachable from that host alone, link up or down). */
  local_ip(host: string): string;
  /** Take `host`'s link to everyone else down (`ip link set eth0 down` inside it). */
  cut(host: string): Promise<void>;
  /** Bring it back up. */
  restore(host: string): Promise<void>;
  /** Delete the namespaces (the root-side veth goes with its peer). Idempotent. */
  cleanup(): Promise<void>;
}

/** Build the network with `agent_count` agent hosts (a1…aN). Needs root. */
export async function createFaultNetwork(agent_count = 3): Promise<FaultNetwork> {
  const s = 200 + (process.pid % 50);
  const net = `198.19.${s}`;
  const hosts = Array.from({ length: agent_count }, (_, i) => `a${i + 1}`);
  const topology = await createTopology({
    nodes: { sw: {}, ...Object.fromEntries(hosts.map((h) => [h, {}])) },
    links: hosts.map((h, i) => ({ a: 'sw', b: h, b_addrs: [`${net}.${11 + i}/24`] })),
    commands: {
      sw: ['ip link add br0 type bridge', ...hosts.map((_, i) => `ip link set eth${i} master br0`), 'ip link set br0 up'],
      ...Object.fromEntries(hosts.map((h, i) => [h, [`ip addr add ${net}.${111 + i}/32 dev lo`]])),
    },
  });
  const root_if = `vf${process.pid % 1_000_000}`;
  const cleanup = async () => {
    await run('ip', ['link', 'del', root_if]).catch(() => undefined);
    await topology.cleanup();
  };
  try {
    const sw_if = `eth${hosts.length}`;
    await run('ip', ['link', 'add', root_if, 'type', 'veth', 'peer', 'name', sw_if, 'netns', topology.ns('sw')]);
    await topology.run('sw', ['ip', 'link', 'set', sw_if, 'master', 'br0']);
    await topology.run('sw', ['ip', 'link', 'set', sw_if, 'up']);
    await run('ip', ['addr', 'add', `${net}.1/24`, 'dev', root_if]);
    await run('ip', ['link', 'set', root_if, 'up']);
    // Carrier comes up asynchronously; the first ARP would otherwise be lost.
    await waitPing(topology, hosts, `${net}.1`);
  } catch (err) {
    await cleanup();
    throw err;
  }
  const index = (host: string) => {
    const i = hosts.indexOf(host);
    if (i < 0) throw new Error(`unknown agent host ${host}`);
    return i;
  };
  return {
    topology,
    root_ip: `${net}.1`,
    cidr: `${net}.0/24`,
    hosts,
    host_ip: (h) => `${net}.${11 + index(h)}`,
    local_ip: (h) => `${net}.${111 + index(h)}`,
    cut: async (h) => { await topology.run(h, ['ip', 'link', 'set', topology.ifname(h, 'sw'), 'down']); },
    restore: async (h) => { await topology.run(h, ['ip', 'link', 'set', topology.ifname(h, 'sw'), 'up']); },
    cleanup,
  };
}

/**
 * Wait until every host reaches `ip` over TCP/IP (a connect attempt to a closed port answers RST
 * once ARP works). One process per host retries inside itself: spawning a node per attempt took
 * seconds each on a busy machine and ran out the bound before a single connect was tried.
 */
async function waitPing(topology: Topology, hosts: string[], ip: string): Promise<void> {
  const bound_ms = 60_000;
  const probe = `const until=Date.now()+${bound_ms};const attempt=()=>{const s=require('net').connect(9,'${ip}');s.setTimeout(1000);` +
    `const retry=()=>{s.destroy();if(Date.now()>until)process.exit(1);setTimeout(attempt,200);};` +
    `s.on('connect',()=>process.exit(0));s.on('error',e=>e.code==='ECONNREFUSED'?process.exit(0):retry());s.on('timeout',retry);};attempt();`;
  await Promise.all(hosts.map(async (h) => {
    // The bound plus time for the process to start under load.
    const got = await topology.exec(h, [process.execPath, '-e', probe], { timeout_ms: bound_ms + 30_000 });
    if (got.code !== 0) throw new Error(`${h} cannot reach ${ip} within ${bound_ms} ms: ${got.stderr.trim()}`);
  }));
}
