import { execFile } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { processTree } from './process-tree.js';
import { userNamespacesRefused } from './sandbox.js';
import { check, CHROMIUM_PATH, SKIP_WITHOUT_CHROMIUM, testPool } from './test-support/harness.js';
import { startPageServer } from './test-support/pages.js';

/*
 * Chromium's sandbox with the real /usr/bin/chromium: the pool's browser runs sandboxed (renderers
 * in their own user namespace under a seccomp-bpf filter), as `nobody` when the agent is root, as
 * the agent's user otherwise; where the kernel refuses user namespaces, or the sandboxed launch
 * fails, Chromium runs without the sandbox and says why. Other users and namespaces are real
 * processes (setpriv, unshare) running test-support/launch-decision.ts.
 */

const DECISION = fileURLToPath(new URL('./test-support/launch-decision.ts', import.meta.url));
const ROOT = process.getuid?.() === 0;

/** A /proc/<pid>/status field, e.g. `Uid` → "65534 65534 65534 65534". */
const status = (pid: number, field: string) => new RegExp(`^${field}:\\s*(.*)$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? '';
// Chromium rewrites its children's argv into one string (setproctitle): read it as text.
const cmdline = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');

/** Run launch-decision.ts under `wrap` (a command line that ends by running its arguments). */
function decision(wrap: string[], env: NodeJS.ProcessEnv = {}): Promise<Record<string, any>> {
  const argv = [...wrap, process.execPath, '--import', 'tsx', DECISION];
  return new Promise((resolve, reject) => {
    execFile(argv[0]!, argv.slice(1), { env: { ...process.env, ...env }, timeout: 120_000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`${argv.join(' ')}: ${err.message}\n${stderr}`));
      resolve(JSON.parse(stdout.trim().split('\n').at(-1)!));
    });
  });
}

t.test('kernel knobs: refused only when a knob says so', async (t) => {
  const knobs = (values: Record<string, string>) => (path: string) => {
    if (path in values) return values[path]!;
    throw new Error('ENOENT');
  };
  t.equal(userNamespacesRefused(knobs({})), null, 'no knobs: a launch decides');
  t.equal(userNamespacesRefused(knobs({ '/proc/sys/kernel/unprivileged_userns_clone': '1\n', '/proc/sys/user/max_user_namespaces': '63000\n' })), null);
  t.match(userNamespacesRefused(knobs({ '/proc/sys/kernel/unprivileged_userns_clone': '0\n' })), /unprivileged_userns_clone = 0/);
  t.match(userNamespacesRefused(knobs({ '/proc/sys/user/max_user_namespaces': '0' })), /max_user_namespaces = 0/);
});

t.test('the pool\'s Chromium runs sandboxed', { skip: SKIP_WITHOUT_CHROMIUM || userNamespacesRefused() || false }, async (t) => {
  const pages = await startPageServer();
  t.teardown(() => pages.close());
  const pool = testPool();
  t.teardown(() => pool.close());
  // A page whose image comes late keeps its renderer alive while the processes are read.
  const running = check(pool, pages.url('/slow?ms=5000'), { assertions: [{ kind: 'renderable' }], timeout_ms: 60_000 });
  await pages.requested('/delay.png');
  const browser = pool.pid()!;
  t.ok(browser, 'browser pid');
  const tree = processTree(browser);
  const renderers = tree.filter((pid) => { try { return cmdline(pid).includes(' --type=renderer'); } catch { return false; } });
  t.ok(renderers.length >= 1, 'a renderer runs');
  t.notMatch(cmdline(browser), /--no-sandbox/, 'no --no-sandbox');
  const uid = Number(status(browser, 'Uid').split(/\s+/)[0]);
  t.equal(uid, ROOT ? 65534 : process.getuid!(), ROOT ? 'the agent is root: the browser runs as nobody' : 'the browser runs as the agent');
  t.equal(status(browser, 'CapEff'), '0000000000000000', 'the browser holds no capability');
  const own_ns = readlinkSync(`/proc/${browser}/ns/user`);
  for (const pid of renderers) {
    t.equal(status(pid, 'Seccomp'), '2', `renderer ${pid} runs under a seccomp-bpf filter`);
    t.not(readlinkSync(`/proc/${pid}/ns/user`), own_ns, `renderer ${pid} is in a user namespace of its own`);
  }
  const r = await running;
  t.equal(r.success, true, r.error ?? 'the page loads and renders');
});

t.test('another user, and kernels that refuse the sandbox', { skip: SKIP_WITHOUT_CHROMIUM || (ROOT ? false : 'needs root to act as other users') }, async (t) => {
  // The installer's mode: the agent runs as an unprivileged service user.
  const as_user = await decision(['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'], { HOME: '/tmp' });
  t.match(as_user, { uid: 65534, chromiumSandbox: true, user: 'nobody', sandbox_off: null }, 'sandboxed as the agent\'s own user');
  t.notMatch(as_user.executablePath, /^\/usr\/bin\/chromium$/, 'through the wrapper that drops the agent\'s capabilities');

  // A user namespace whose own limit allows no further namespace: the sandbox cannot start.
  const no_userns = await decision(['unshare', '--user', '--map-root-user', 'sh', '-c', 'echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"', 'sh']);
  t.match(no_userns, { chromiumSandbox: false, executablePath: CHROMIUM_PATH, sandbox_off: /max_user_namespaces = 0/ }, 'without the sandbox, saying why');
  t.type(no_userns.version, 'string', 'and Chromium started');

  // Root in a user namespace that maps no other user: nobody cannot be switched to, so the sandboxed launch fails.
  const unmapped = await decision(['unshare', '--user', '--map-root-user']);
  t.match(unmapped, { uid: 0, chromiumSandbox: false, executablePath: CHROMIUM_PATH, sandbox_off: /^the sandboxed launch failed: / });
});
