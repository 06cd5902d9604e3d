import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNamespace } from '../../installer/test-support/netns-host.js';
import { cleanEnv, REPO } from './control-plane.js';

/**
 * Agents installed with the real one-line installer (installer/install.sh, served by the control
 * plane at /install.sh), one per agent namespace, exactly as test/installer.test.ts does:
 * VANTAGE_ROOT keeps every system path under a per-host folder, `--user nobody`, and the stand-in
 * systemctl (installer/test-support/systemctl; systemd is not PID 1 here) starts the unit's
 * ExecStart as that user with CAP_NET_RAW only.
 */

const STANDIN_DIR = join(REPO, 'installer', 'test-support');
const UNIT = 'vantage-agent.service';
const NODE_ID = /\bn_[0-9A-Za-z]{26}\b/;

/** One installed agent host. */
export interface InstalledAgent {
  /** The node id install.sh printed. */
  node_id: string;
  /** VANTAGE_ROOT of this host. */
  root: string;
  state_dir: string;
  conf_file: string;
  /** The service's stdout/stderr (the stand-in systemctl appends to it). */
  log_file: string;
  /** The agent's pid (from the stand-in's pid file), or null when it is not running. */
  pid(): number | null;
  /** Send `signal` (default SIGKILL) to the agent and resolve once it is gone. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** `systemctl start vantage-agent.service` inside the namespace. @throws when the stand-in fails */
  start(): Promise<void>;
}

/** The last `lines` lines of a log file ('(no log)' when there is none yet). */
export function tail(file: string, lines: number): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** 'running', 'zombie' (exited, not yet reaped by its parent) or 'gone'. */
function procState(pid: number): 'running' | 'zombie' | 'gone' {
  try {
    return /^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8')) ? 'zombie' : 'running';
  } catch {
    return 'gone';
  }
}

/**
 * Run `curl -fsSL <base_url>/install.sh | sh -s -- --user nobody --yes --allow-cidrs …` in
 * namespace `ns` with the token in the environment (VANTAGE_TOKEN, never on a command line), then give the unit NODE_EXTRA_CA_CERTS=`ca_file` (what an operator does with a
 * drop-in; the stand-in reads the unit's single Environment= line) and restart it, so the agent
 * verifies HTTPS against the test CA. `root` must exist (0755).
 * @throws Error with the installer's output and the agent's own log when it fails or prints no node id
 */
export async function installAgent(opts: { ns: string; root: string; base_url: string; token: string; allow_cidrs: string[]; ca_file: string }): Promise<InstalledAgent> {
  const env = { ...cleanEnv(), PATH: `${STANDIN_DIR}:${process.env.PATH}`, VANTAGE_ROOT: opts.root };
  const sh = (script: string, timeout_ms?: number) => runInNamespace(opts.ns, script, env, timeout_ms);
  const log_file = join(opts.root, `${UNIT}.log`);
  const res = await runInNamespace(opts.ns, `curl -fsSL ${opts.base_url}/install.sh | sh -s -- --user nobody --yes --allow-cidrs ${opts.allow_cidrs.join(',')} --wait 120`,
    { ...env, VANTAGE_TOKEN: opts.token }, 240_000);
  const node_id = res.stdout.match(NODE_ID)?.[0];
  if (res.code !== 0 || !node_id) {
    throw new Error(`install.sh in ${opts.ns} exited ${res.code}\nstdout: ${res.stdout}\nstderr: ${res.stderr}\nagent log (${log_file}):\n${tail(log_file, 40)}`);
  }

  const unit_file = join(opts.root, 'etc', 'systemd', 'system', UNIT);
  const unit = readFileSync(unit_file, 'utf8');
  if (!/^Environment=/m.test(unit)) throw new Error(`${unit_file} has no Environment= line`);
  writeFileSync(unit_file, unit.replace(/^Environment=(.*)$/m, `Environment=$1 NODE_EXTRA_CA_CERTS=${opts.ca_file}`));
  const restart = await sh(`systemctl daemon-reload && systemctl restart ${UNIT}`);
  if (restart.code !== 0) throw new Error(`systemctl restart in ${opts.ns}: ${restart.stderr}`);

  const pid_file = join(opts.root, `${UNIT}.pid`);
  const pid = () => {
    if (!existsSync(pid_file)) return null;
    const n = Number(readFileSync(pid_file, 'utf8').trim());
    return Number.isInteger(n) && n > 0 && procState(n) === 'running' ? n : null;
  };
  return {
    node_id,
    root: opts.root,
    state_dir: join(opts.root, 'var', 'lib', 'vantage-agent'),
    conf_file: join(opts.root, 'etc', 'vantage', 'agent.json'),
    log_file,
    pid,
    async kill(signal: NodeJS.Signals = 'SIGKILL') {
      const n = pid();
      if (n === null) return;
      process.kill(n, signal);
      // Not our child (the stand-in starts it with setsid, so init reaps it): no exit event reaches
      // us, so poll /proc. The stand-in's `kill -0` counts an unreaped zombie as active, so wait
      // for the reaping too; should init be slow to reap, the stale pid file is removed instead.
      const deadline = Date.now() + 30_000;
      for (let state = procState(n); state !== 'gone'; state = procState(n)) {
        if (state === 'zombie' && Date.now() > deadline - 25_000) {
          rmSync(pid_file, { force: true });
          break;
        }
        if (Date.now() > deadline) throw new Error(`agent ${n} still running 30 s after ${signal}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async start() {
      const got = await sh(`systemctl start ${UNIT}`);
      if (got.code !== 0 || pid() === null) throw new Error(`systemctl start in ${opts.ns} failed: ${got.stderr}\nagent log:\n${tail(log_file, 40)}`);
    },
  };
}
