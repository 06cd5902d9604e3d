import { execFileSync, spawn } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { createServer, connect, type Server } from 'node:net';

/**
 * A one-host test network for the installer test (docs/architecture/test-network.md): a network
 * namespace joined to the root namespace by a veth pair on a random 198.19.x.y/30 (the benchmarking
 * range of RFC 2544), and a TCP relay from the root side of the link to a server on loopback, so a
 * process inside the namespace reaches the control plane at `http://<root_addr>:<port>` and
 * nothing else. x stays within 2-199: the fault tests' network takes 198.19.200-249.0/24 in the
 * root namespace, and a /30 already routed there (another test file running now) is skipped.
 */

interface Teardown { teardown(fn: () => unknown): void }

export interface NamespaceHost {
  /** Namespace name (`vi-<hex>`). */
  ns: string;
  /** Root-namespace end of the link, reachable from inside the namespace. */
  root_addr: string;
  /** Address of the namespace end. */
  host_addr: string;
}

export interface RunResult { code: number | null; stdout: string; stderr: string }

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** A random 198.19.x.y/30 (x in 2-199, no root-namespace address or route in 198.19.x.0/24): its .1 and .2. */
function freeLink(): [string, string] {
  const used = execFileSync('ip', ['-4', '-o', 'addr', 'show'], { encoding: 'utf8' }) + execFileSync('ip', ['-4', 'route', 'show'], { encoding: 'utf8' });
  const taken = new Set([...used.matchAll(/198\.19\.(\d+)\./g)].map((m) => Number(m[1])));
  for (let attempt = 0; attempt < 100; attempt++) {
    const x = randomInt(2, 200);
    if (taken.has(x)) continue;
    const base = randomInt(0, 64) * 4;
    return [`198.19.${x}.${base + 1}`, `198.19.${x}.${base + 2}`];
  }
  throw new Error('no free 198.19.x.0/24 for the installer test link');
}

/** Create the namespace and its link; deleted at teardown (deleting the namespace drops the veth). */
export function namespaceHost(t: Teardown): NamespaceHost {
  const tag = randomBytes(3).toString('hex');
  const ns = `vi-${tag}`;
  const [root_addr, host_addr] = freeLink();
  const [outer, inner] = [`vio${tag}`, `vii${tag}`];
  ip('netns', 'add', ns);
  t.teardown(() => {
    try { ip('link', 'del', outer); } catch { /* gone with the namespace */ }
    try { ip('netns', 'del', ns); } catch { /* already gone */ }
  });
  ip('link', 'add', outer, 'type', 'veth', 'peer', 'name', inner);
  ip('link', 'set', inner, 'netns', ns);
  ip('addr', 'add', `${root_addr}/30`, 'dev', outer);
  ip('link', 'set', outer, 'up');
  ip('-n', ns, 'addr', 'add', `${host_addr}/30`, 'dev', inner);
  ip('-n', ns, 'link', 'set', inner, 'up');
  ip('-n', ns, 'link', 'set', 'lo', 'up');
  return { ns, root_addr, host_addr };
}

/**
 * Relay TCP from `listen_host:0` to `target` (`host:port`); closed at teardown.
 * @returns the relay's port
 */
export async function tcpRelay(t: Teardown, listen_host: string, target: { host: string; port: number }): Promise<number> {
  const sockets = new Set<import('node:net').Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => { client.destroy(); upstream.destroy(); });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, listen_host, () => resolve());
  });
  t.teardown(() => new Promise<void>((resolve) => {
    for (const s of sockets) s.destroy();
    server.close(() => resolve());
  }));
  return (server.address() as import('node:net').AddressInfo).port;
}

/**
 * Run `sh -c script` inside the namespace (`ip netns exec`) with `env`, without blocking the
 * event loop (the control plane answering it runs in this process). Never rejects on a non-zero
 * exit; rejects only when the process cannot be started or outlives `timeout_ms` (then killed).
 */
export function runInNamespace(ns: string, script: string, env: NodeJS.ProcessEnv, timeout_ms = 300_000): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('ip', ['netns', 'exec', ns, 'sh', '-c', script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timed out after ${timeout_ms} ms: ${script}\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeout_ms);
    child.on('error', (err) => { clearTimeout(timer); reject(err); });
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
  });
}
