import { accessSync, chmodSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { chromiumArgs } from './flags.js';
import { chromiumType } from './playwright.js';

/*
 * Chromium's own sandbox for the pages a node loads (docs/operators/agent.md "Browser sandbox"):
 * any tenant's page runs in a renderer, and without the sandbox a renderer exploit has the
 * browser's user and everything it can read (the node credential, the outbox). On Linux the
 * sandbox is a user namespace (Debian's chromium has no setuid helper) plus seccomp-bpf, which
 * needs unprivileged user namespaces and refuses to start as root ("Running as root without
 * --no-sandbox is not supported", crbug.com/638180). So:
 * - agent not root (the installer's service user): Chromium runs sandboxed as that user, without
 *   the agent's capabilities (setpriv; the service's CAP_NET_RAW is for ping, not the browser);
 * - agent root: Chromium runs sandboxed as `nobody`, through a wrapper that hands it its fresh
 *   profile folder and drops to that user with setpriv (Playwright's launch takes no uid);
 * - where the kernel refuses user namespaces, or the sandboxed launch fails for another reason
 *   than a timeout: without the sandbox (--no-sandbox), with the reason logged and advertised.
 */

/** How this node launches Chromium, as decided by a real launch ({@link chromiumLaunch}). */
export interface ChromiumLaunch {
  /** What Playwright spawns: the Chromium binary, or the wrapper that starts it as `user`. */
  executablePath: string;
  /** Playwright's `chromiumSandbox` (false adds --no-sandbox). */
  chromiumSandbox: boolean;
  /** The account Chromium runs as. */
  user: string;
  /** Why Chromium runs without its sandbox; null when sandboxed. */
  sandbox_off: string | null;
  /** The browser's version, from the deciding launch. */
  version: string;
}

/** Where setpriv (util-linux) may be. */
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'];
/** The account Chromium runs as when the agent is root; its ids without a passwd entry. */
const SANDBOX_USER = { name: 'nobody', uid: 65534, gid: 65534 };

/** Why this kernel refuses unprivileged user namespaces, or null when it may allow them (a launch decides). */
export function userNamespacesRefused(read = (path: string) => readFileSync(path, 'utf8')): string | null {
  const knob = (path: string) => {
    try {
      return read(path).trim();
    } catch {
      return null; // not this kernel's knob
    }
  };
  if (knob('/proc/sys/kernel/unprivileged_userns_clone') === '0') return 'the kernel refuses unprivileged user namespaces (kernel.unprivileged_userns_clone = 0)';
  if (knob('/proc/sys/user/max_user_namespaces') === '0') return 'the kernel allows no user namespaces (user.max_user_namespaces = 0)';
  return null;
}

/** `nobody`'s ids from /etc/passwd (65534:65534 without an entry). */
function sandboxUser(): { name: string; uid: number; gid: number } {
  try {
    for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const [name, , uid, gid] = line.split(':');
      if (name === SANDBOX_USER.name && /^\d+$/.test(uid ?? '') && /^\d+$/.test(gid ?? '')) return { name, uid: Number(uid), gid: Number(gid) };
    }
  } catch {
    // no passwd file: the conventional ids
  }
  return SANDBOX_USER;
}

const quoted = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

/**
 * A wrapper (in a private temporary folder, removed at exit) that runs `executable_path` with no
 * capabilities (the service's ambient CAP_NET_RAW is the agent's, not the browser's) and
 * no_new_privs; given `user` (the agent is root), as that user with no supplementary groups and
 * an empty bounding set, after giving it the profile folder Playwright made (`--user-data-dir`,
 * also its HOME).
 * @returns the wrapper's path, or null without setpriv
 */
function writeWrapper(executable_path: string, user: { uid: number; gid: number } | null): string | null {
  const setpriv = SETPRIV.find((p) => { try { accessSync(p, constants.X_OK); return true; } catch { return false; } });
  if (!setpriv) return null;
  const dir = mkdtempSync(join(tmpdir(), 'vantage-chromium-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const drop = user
    ? `--reuid=${user.uid} --regid=${user.gid} --clear-groups --inh-caps=-all --ambient-caps=-all --bounding-set=-all --no-new-privs`
    : '--inh-caps=-all --ambient-caps=-all --no-new-privs';
  const path = join(dir, 'chromium');
  writeFileSync(path, [
    '#!/bin/sh',
    '# Written by the Vantage node agent (browser/sandbox.ts): Chromium without the agent\'s capabilities',
    '# and, when the agent is root, as an unprivileged user (its sandbox does not start as root).',
    'set -eu',
    ...(user ? [
      'for arg in "$@"; do',
      '  case $arg in',
      `    --user-data-dir=*) dir=\${arg#--user-data-dir=}; chown ${user.uid}:${user.gid} "$dir"; HOME=$dir; export HOME ;;`,
      '  esac',
      'done',
    ] : []),
    `exec ${quoted(setpriv)} ${drop} -- ${quoted(executable_path)} "$@"`,
    '',
  ].join('\n'), { mode: 0o700 });
  chmodSync(path, 0o700);
  return path;
}

/** Launch and close Chromium once with the probe flags. @returns its version @throws the launch error */
async function launchOnce(executablePath: string, chromiumSandbox: boolean, timeout_ms: number): Promise<string> {
  const browser = await (await chromiumType()).launch({
    executablePath, chromiumSandbox, headless: true, timeout: timeout_ms,
    args: chromiumArgs({ js_heap_max_mb: 128, renderer_process_limit: 1 }, '--vantage-browser=probe'),
    handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false,
  });
  const version = browser.version();
  await browser.close();
  return version;
}

const firstLine = (err: unknown) => (((err as Error)?.message ?? String(err)).split('\n').find((l) => l.trim() !== '') ?? 'failed').trim();

async function decide(executable_path: string, timeout_ms: number): Promise<ChromiumLaunch> {
  const root = process.getuid?.() === 0;
  const me = root ? 'root' : userInfo().username;
  let sandbox_off = userNamespacesRefused();
  if (!sandbox_off) {
    const user = root ? sandboxUser() : null;
    // Without setpriv a non-root agent still starts Chromium sandboxed, only with its capabilities.
    const wrapper = writeWrapper(executable_path, user) ?? (root ? null : executable_path);
    if (!wrapper) sandbox_off = `the agent runs as root and setpriv (util-linux) is missing to start Chromium as ${SANDBOX_USER.name}`;
    else {
      try {
        const version = await launchOnce(wrapper, true, timeout_ms);
        return { executablePath: wrapper, chromiumSandbox: true, user: user?.name ?? me, sandbox_off: null, version };
      } catch (err) {
        // A slow machine is no reason to give up the sandbox: the caller tries again later.
        if ((err as Error)?.name === 'TimeoutError') throw err;
        sandbox_off = `the sandboxed launch failed: ${firstLine(err)}`;
      }
    }
  }
  const version = await launchOnce(executable_path, false, timeout_ms);
  return { executablePath: executable_path, chromiumSandbox: false, user: me, sandbox_off, version };
}

// One decision per binary and process (tests start many agents and pools in one process).
const decided = new Map<string, Promise<ChromiumLaunch>>();

/**
 * How to launch the Chromium at `executable_path` on this node: sandboxed where the kernel allows
 * (as the agent's user, or as `nobody` when the agent is root), else without the sandbox and the
 * reason why. Decided once per binary by real launches (each bounded by `timeout_ms`, default
 * 30 s); a failure is not remembered, so the next call tries again.
 * @throws the launch error when Chromium does not start at all
 */
export function chromiumLaunch(executable_path: string, timeout_ms = 30_000): Promise<ChromiumLaunch> {
  let pending = decided.get(executable_path);
  if (!pending) {
    decided.set(executable_path, pending = decide(executable_path, timeout_ms));
    pending.catch(() => decided.delete(executable_path));
  }
  return pending;
}
