import { execFile, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports.js';

const run = promisify(execFile);

/** A Postgres server of the test's own, which it may stop and start (not the shared one). */
export interface OwnPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust auth). */
  url: string;
  port: number;
  /** `pg_ctl stop -m fast`: clients see their connections terminated. */
  stop(): Promise<void>;
  /** `pg_ctl start` on the same data folder and port; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Last lines of the server log (for failure messages). */
  logTail(lines?: number): string;
  /** Stop (immediate) and delete the data folder. Idempotent. */
  destroy(): Promise<void>;
}

/** The newest installed server's bin folder (Debian layout /usr/lib/postgresql/<ver>/bin). */
function binDir(): string {
  const versions = readdirSync('/usr/lib/postgresql').filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
  if (versions.length === 0) throw new Error('no Postgres server installed under /usr/lib/postgresql');
  return `/usr/lib/postgresql/${versions[0]}/bin`;
}

/**
 * initdb in a fresh temporary folder and start a server on a free port of 127.0.0.1, run as the
 * `postgres` user (Postgres refuses to run as root; `runuser`). Trust auth, fsync off (a clean
 * `-m fast` stop still writes a shutdown checkpoint, so no committed row is lost by our restarts).
 * @throws Error with initdb/pg_ctl output when the server does not come up
 */
export async function startOwnPostgres(user = 'postgres'): Promise<OwnPostgres> {
  const bin = binDir();
  sweepStale(bin, user);
  const dir = mkdtempSync(join(tmpdir(), DIR_PREFIX));
  writeFileSync(join(dir, 'owner.pid'), String(process.pid));
  const { uid, gid } = await userIds(user);
  chownSync(dir, uid, gid);
  const data = join(dir, 'data');
  const log = join(dir, 'server.log');
  const as = (cmd: string, args: string[]) => run('runuser', ['-u', user, '--', join(bin, cmd), ...args], { timeout: 60_000 });
  await as('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const port = await freePort('127.0.0.1');
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60`;
  let destroyed = false;
  // A test killed by its timeout skips teardown: stop the server when this process exits at least.
  const onExit = () => { if (!destroyed) stopSync(bin, user, dir); };
  process.once('exit', onExit);
  const pg: OwnPostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async stop() {
      await as('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
    },
    async start() {
      await as('pg_ctl', ['-D', data, '-l', log, '-o', opts, '-w', '-t', '60', 'start']);
    },
    logTail(lines = 20) {
      try {
        return readFileSync(log, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
      } catch {
        return '(no server log)';
      }
    },
    async destroy() {
      if (destroyed) return;
      destroyed = true;
      process.off('exit', onExit);
      await as('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await pg.start();
  } catch (err) {
    const tail = pg.logTail();
    await pg.destroy();
    throw new Error(`own Postgres did not start: ${(err as Error).message}\n${tail}`);
  }
  return pg;
}

async function userIds(user: string): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all([run('id', ['-u', user]), run('id', ['-g', user])]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

const DIR_PREFIX = 'vantage-faults-pg-';

/** Stop the server of `dir` at once and delete the folder (synchronous: exit paths). */
function stopSync(bin: string, user: string, dir: string): void {
  if (existsSync(join(dir, 'data', 'postmaster.pid'))) {
    spawnSync('runuser', ['-u', user, '--', join(bin, 'pg_ctl'), '-D', join(dir, 'data'), '-m', 'immediate', '-w', 'stop'], { stdio: 'ignore', timeout: 30_000 });
  }
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Stop and delete servers left by earlier runs whose test process is gone (killed with SIGKILL,
 * or by a timeout): folders `vantage-faults-pg-*` whose `owner.pid` names a dead process.
 */
function sweepStale(bin: string, user: string): void {
  for (const name of readdirSync(tmpdir()).filter((n) => n.startsWith(DIR_PREFIX))) {
    const dir = join(tmpdir(), name);
    let owner: number;
    try {
      owner = Number(readFileSync(join(dir, 'owner.pid'), 'utf8'));
    } catch {
      continue;
    }
    try {
      process.kill(owner, 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ESRCH') stopSync(bin, user, dir);
    }
  }
}
