import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** Repository root (test/demo/ is two levels down). */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A child process of the demo with its log file; `stop()` sends SIGTERM and waits (SIGKILL after 5 s). */
export interface Child {
  name: string;
  proc: ChildProcess;
  log_file: string;
  stop(): Promise<void>;
}

/**
 * Start `node <script> ...args` from the repository root with its stdout/stderr going to
 * `<log_dir>/<name>.log` (the demo's own screen stays readable). Exits of the child before stop()
 * are reported through `on_exit`.
 */
export function startChild(name: string, script: string, args: string[], env: Record<string, string>, log_dir: string, on_exit: (name: string, code: number | null) => void): Child {
  mkdirSync(log_dir, { recursive: true });
  const log_file = join(log_dir, `${name}.log`);
  const out = createWriteStream(log_file);
  // A test runner's NODE_OPTIONS (loaders, coverage hooks) must not leak into the services.
  const { NODE_OPTIONS: _ignored, ...inherited } = process.env;
  const proc = spawn(process.execPath, [join(ROOT, script), ...args], { cwd: ROOT, env: { ...inherited, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stdout!.pipe(out);
  proc.stderr!.pipe(out);
  let stopping = false;
  proc.on('exit', (code) => { if (!stopping) on_exit(name, code); });
  return {
    name, proc, log_file,
    stop: () => new Promise<void>((resolve) => {
      stopping = true;
      if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
      const kill = setTimeout(() => proc.kill('SIGKILL'), 5000);
      proc.once('exit', () => { clearTimeout(kill); resolve(); });
      proc.kill('SIGTERM');
    }),
  };
}

/** Poll `check` every `every_ms` until it returns a value, or throw `what` after `timeout_ms`. */
export async function waitFor<T>(what: string, timeout_ms: number, check: () => Promise<T | null | undefined>, every_ms = 250): Promise<T> {
  const until = Date.now() + timeout_ms;
  for (;;) {
    const v = await check().catch(() => null);
    if (v !== null && v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out after ${timeout_ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, every_ms));
  }
}
