import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';

/** How one benchmark script ended. `code` is null when it was killed (timeout or signal). */
export interface ScriptRun {
  code: number | null;
  signal: string | null;
  stdout: string;
  /** The last 15 lines of its stderr. */
  stderr_tail: string;
  seconds: number;
  timed_out: boolean;
}

/**
 * Run `argv` (argv[0] is the executable) from `cwd` in its own process group, its stdout and
 * stderr copied to `log_file` and stdout also kept in memory. After `timeout_s` the group gets
 * SIGTERM (scripts that build namespaces delete them on SIGTERM), then SIGKILL 10 s later.
 * NODE_OPTIONS of the caller is not passed on (a runner's loader must not leak into the scripts).
 * Never rejects: a script that cannot start ends with code null and the error in stderr_tail.
 */
export function runScript(argv: string[], opts: { cwd: string; log_file: string; timeout_s: number }): Promise<ScriptRun> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const log = createWriteStream(opts.log_file);
    const { NODE_OPTIONS: _dropped, ...env } = process.env;
    const child = spawn(argv[0]!, argv.slice(1), { cwd: opts.cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let timed_out = false;
    child.stdout.on('data', (c: Buffer) => { stdout += c.toString(); log.write(c); });
    child.stderr.on('data', (c: Buffer) => { stderr = (stderr + c.toString()).slice(-8000); log.write(c); });
    const group = (signal: NodeJS.Signals) => { try { process.kill(-child.pid!, signal); } catch { /* already gone */ } };
    let kill: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      timed_out = true;
      group('SIGTERM');
      kill = setTimeout(() => group('SIGKILL'), 10_000);
    }, opts.timeout_s * 1000);
    const finish = (code: number | null, signal: string | null, extra = '') => {
      clearTimeout(timer);
      clearTimeout(kill);
      log.end();
      const tail = (stderr + extra).split('\n').filter((l) => l.trim() && !l.startsWith('npm warn')).slice(-15).join('\n');
      resolve({ code, signal, stdout, stderr_tail: tail, seconds: (performance.now() - t0) / 1000, timed_out });
    };
    child.once('error', (err) => finish(null, null, `\n${err.message}`));
    child.once('close', (code, signal) => finish(code, signal));
  });
}
