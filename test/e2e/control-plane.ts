import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from '../../control-plane/src/db/sql.js';
import { TEST_DATABASE_URL } from '../../control-plane/src/test-support/db.js';

/** Repository root (test/e2e/ is two levels down). */
export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The control plane as a real child process (control-plane/bin/control-plane.mjs), restartable. */
export interface ControlPlaneProcess {
  /** `http://host:port`, the same across restarts. */
  readonly url: string;
  /** Appended to by every start. */
  readonly log_file: string;
  /** The running process's pid, or null while stopped. */
  pid(): number | null;
  /**
   * Start it and resolve when GET /v1/nodes answers 200 (database migrated, hub up). `env` is laid
   * over the settings of this start and every later one (a restart with another setting).
   * @throws when it exits first or is not ready in 120 s
   */
  start(env?: Record<string, string>): Promise<void>;
  /** Send `signal` (default SIGTERM: graceful; SIGKILL for crash tests) and resolve when it has exited. SIGTERM escalates to SIGKILL after 15 s. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** This process's environment without the test runner's hooks (NODE_OPTIONS loaders, TAP_*). */
export function cleanEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && e[0] !== 'NODE_OPTIONS' && !/^_?TAP/i.test(e[0])));
}

/**
 * A fresh empty database on the test Postgres server (TEST_DATABASE_URL's server; test/env/postgres.sh), for
 * a control plane to migrate at its first start. `drop()` removes it (connections forced out).
 */
export async function createDatabase(admin_url = TEST_DATABASE_URL): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `vantage_e2e_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = connect(admin_url, 1);
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end({ timeout: 5 });
  }
  const u = new URL(admin_url);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const again = connect(admin_url, 1);
      try {
        await again.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await again.end({ timeout: 5 });
      }
    },
  };
}

/**
 * A control plane listening on `host:port` (an address of the root namespace) with `env` on top of
 * the base settings below. Not started: call start().
 */
export function controlPlaneProcess(opts: { host: string; port: number; database_url: string; log_file: string; env?: Record<string, string> }): ControlPlaneProcess {
  const url = `http://${opts.host}:${opts.port}`;
  const env: Record<string, string> = {
    ...cleanEnv(),
    VANTAGE_HOST: opts.host, VANTAGE_PORT: String(opts.port), VANTAGE_PUBLIC_URL: url,
    VANTAGE_DATABASE_URL: opts.database_url, DATABASE_URL: '',
    VANTAGE_LOG_LEVEL: 'info',
    ...opts.env,
  };
  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();

  const logTail = () => {
    try {
      return readFileSync(opts.log_file, 'utf8').split('\n').slice(-20).join('\n');
    } catch {
      return '';
    }
  };

  return {
    url,
    log_file: opts.log_file,
    pid: () => (child && child.exitCode === null && child.signalCode === null ? child.pid ?? null : null),
    async start(overrides = {}) {
      if (child && child.exitCode === null && child.signalCode === null) throw new Error('control plane already running');
      Object.assign(env, overrides);
      const fd = openSync(opts.log_file, 'a');
      const proc = spawn(process.execPath, [join(REPO, 'control-plane', 'bin', 'control-plane.mjs')], { cwd: REPO, env, stdio: ['ignore', fd, fd] });
      closeSync(fd);
      child = proc;
      exited = new Promise<void>((done) => proc.once('exit', () => done()));
      let gone = false;
      void exited.then(() => { gone = true; });
      const deadline = Date.now() + 120_000;
      for (;;) {
        if (gone) throw new Error(`control plane exited (code ${proc.exitCode}, signal ${proc.signalCode}) before it was ready:\n${logTail()}`);
        const ok = await fetch(`${url}/v1/nodes`, { signal: AbortSignal.timeout(5000) }).then((r) => r.ok, () => false);
        if (ok) return;
        if (Date.now() > deadline) throw new Error(`control plane not ready in 120 s:\n${logTail()}`);
        // No readiness event crosses the process boundary: poll.
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      const proc = child;
      if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
      const escalate = signal === 'SIGKILL' ? null : setTimeout(() => proc.kill('SIGKILL'), 15_000);
      proc.kill(signal);
      await exited;
      if (escalate) clearTimeout(escalate);
    },
  };
}
