import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

/** bin/control-plane.mjs, the launcher a real control-plane process is started with. */
export const CONTROL_PLANE_BIN = fileURLToPath(new URL('../../bin/control-plane.mjs', import.meta.url));

/** A TCP port free on 127.0.0.1 now (closed again: the caller binds it soon after). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/**
 * A real control-plane process (bin/control-plane.mjs) with `env` over this process's environment
 * (without NODE_OPTIONS: the test runner's loaders must not leak into the service), which a test
 * can kill -9 and start again with the same settings. `start(base_url)` resolves once
 * `GET /v1/openapi.json` answers there (bounded by `ready_ms`, default 90 s); `kill9` waits for
 * the exit; the process is killed at teardown; `log()` is the tail of its output.
 */
export function controlPlaneProcess(t: { teardown(fn: () => unknown): void }, env: Record<string, string>, ready_ms = 90_000) {
  let proc: ChildProcess | null = null;
  let output = '';
  const kill9 = async () => {
    const p = proc;
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    await new Promise<void>((resolve) => { p.once('exit', () => resolve()); p.kill('SIGKILL'); });
  };
  t.teardown(kill9);
  return {
    kill9,
    log: () => output.split('\n').slice(-20).join('\n'),
    pid: () => proc?.pid ?? null,
    async start(base_url: string) {
      const { NODE_OPTIONS: _ignored, ...inherited } = process.env;
      proc = spawn(process.execPath, [CONTROL_PLANE_BIN], { env: { ...inherited, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      proc.stdout!.on('data', (d: Buffer) => { output += d.toString(); });
      proc.stderr!.on('data', (d: Buffer) => { output += d.toString(); });
      const until = Date.now() + ready_ms;
      for (;;) {
        try {
          if ((await fetch(`${base_url}/v1/openapi.json`)).ok) return;
        } catch { /* not listening yet */ }
        if (Date.now() > until) throw new Error(`the control plane did not answer within ${ready_ms} ms:\n${output.split('\n').slice(-20).join('\n')}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    },
  };
}
