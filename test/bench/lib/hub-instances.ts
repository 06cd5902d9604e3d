/**
 * Control-plane instances for test/bench/hub-bench.ts: the real entry point
 * (control-plane/src/main.ts) as child processes on one database, each on its own free loopback
 * port with its own instance id, configured only through VANTAGE_* variables as an operator would.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';

const TSX = import.meta.resolve('tsx');

/** One running instance: its base URL (`http://127.0.0.1:<port>`), process and a stop function. */
export interface Instance { url: string; pid: number; child: ChildProcess; stop(): Promise<void> }

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Resident set size of `pid` in bytes (Linux /proc), or NaN when unknown. */
export async function rssBytes(pid: number): Promise<number> {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/**
 * Connections the kernel's listen queues dropped since boot, machine-wide (`/proc/net/netstat`
 * TcpExt ListenOverflows): a full accept queue (net.core.somaxconn) drops a handshake, and its
 * client retries a second or more later. NaN when unknown.
 */
export async function listenOverflows(): Promise<number> {
  try {
    const lines = (await readFile('/proc/net/netstat', 'utf8')).split('\n');
    const i = lines.findIndex((l) => l.startsWith('TcpExt:'));
    const names = lines[i]!.split(' ');
    const values = lines[i + 1]!.split(' ');
    return Number(values[names.indexOf('ListenOverflows')]);
  } catch {
    return Number.NaN;
  }
}

/** CPU time `pid` has used so far (user + system), in ms (Linux /proc), or NaN when unknown. */
export async function cpuMs(pid: number): Promise<number> {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}

/**
 * Start `main.ts` with `env` (plus VANTAGE_HOST/PORT/INSTANCE_ID/DATABASE_URL) and wait until
 * `GET /readyz` answers 200, as an orchestrator or load balancer would (the OpenAPI document this
 * waited for before is built on its first request: half a second of the event loop at the moment
 * every node reconnects after a restart). stdout/stderr go to `<log_dir>/<instance_id>.log`.
 * @param node_flags extra Node.js flags (e.g. `--cpu-prof`; an `--import` of a .ts file: they follow tsx's)
 */
export async function startInstance(opts: {
  repo: string; database_url: string; instance_id: string; env: Record<string, string>; log_dir: string; node_flags?: string[];
  /** Listen on this port (a restart in place); default: a free one. */
  port?: number;
  /**
   * Run the build as production does (`control-plane/bin/control-plane.mjs` with NODE_ENV=production:
   * dist/main.mjs, installer/build-runtime.ts) instead of the TypeScript entry point under tsx.
   * tsx is still loaded when `node_flags` import a .ts file (the loop trace).
   */
  built?: boolean;
}): Promise<Instance> {
  const port = opts.port ?? await freePort();
  await mkdir(opts.log_dir, { recursive: true });
  const log = createWriteStream(join(opts.log_dir, `${opts.instance_id}.log`), { flags: 'a' });
  const { NODE_OPTIONS: _dropped, ...parent } = process.env;
  const flags = opts.node_flags ?? [];
  const args = opts.built
    ? [...(flags.some((f) => f.endsWith('.ts')) ? ['--import', TSX] : []), ...flags, join(opts.repo, 'control-plane/bin/control-plane.mjs')]
    : ['--import', TSX, ...flags, join(opts.repo, 'control-plane/src/main.ts')];
  const child = spawn(process.execPath, args, {
    cwd: opts.repo,
    env: {
      ...parent, ...opts.env, ...(opts.built ? { NODE_ENV: 'production' } : {}),
      VANTAGE_HOST: '127.0.0.1', VANTAGE_PORT: String(port), VANTAGE_INSTANCE_ID: opts.instance_id, VANTAGE_DATABASE_URL: opts.database_url,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Never outlive the benchmark, however it ends.
  const orphan = () => child.kill('SIGKILL');
  process.once('exit', orphan);
  child.once('exit', () => process.off('exit', orphan));
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`${opts.instance_id} exited with ${code}; see ${opts.log_dir}`))));
  const up = (async () => {
    for (;;) {
      try {
        if ((await fetch(`${url}/readyz`)).ok) return;
      } catch { /* not listening yet */ }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  await Promise.race([up, exited]);
  exited.catch(() => {});
  return {
    url, pid: child.pid!, child,
    async stop() {
      if (child.exitCode !== null) return;
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await gone;
      clearTimeout(timer);
    },
  };
}
