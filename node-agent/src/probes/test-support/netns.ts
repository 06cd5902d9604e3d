import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const NODE_AGENT_DIR = fileURLToPath(new URL('../../../', import.meta.url));
const PROBE_CLI = fileURLToPath(new URL('./probe-cli.ts', import.meta.url));

/** A network namespace made for one test file; `exec` runs `ip -n <name> …`. */
export interface TestNetns {
  name: string;
  ip(...args: string[]): Promise<void>;
  /** Run one check with the real probe inside the namespace (probe-cli.ts); resolves with its outcome. */
  probe<T = unknown>(check: { type: 'tcp' | 'http'; target: string; params: unknown; policy: unknown }): Promise<T>;
  remove(): Promise<void>;
}

/**
 * Create a network namespace `vt-<tag>-<pid>` with loopback up (root needed; docs/architecture/test-network.md
 * ). A stale namespace of the same name is removed first. Call `remove` in t.teardown.
 */
export async function createNetns(tag: string): Promise<TestNetns> {
  const name = `vt-${tag}-${process.pid}`;
  await run('ip', ['netns', 'del', name]).catch(() => {});
  await run('ip', ['netns', 'add', name]);
  const ns: TestNetns = {
    name,
    ip: async (...args) => { await run('ip', ['-n', name, ...args]); },
    probe: async (check) => {
      const { stdout } = await run('ip', ['netns', 'exec', name, process.execPath, '--import', 'tsx', PROBE_CLI, JSON.stringify(check)], { cwd: NODE_AGENT_DIR, timeout: 60_000 });
      return JSON.parse(stdout) as never;
    },
    remove: async () => { await run('ip', ['netns', 'del', name]).catch(() => {}); },
  };
  await ns.ip('link', 'set', 'lo', 'up');
  return ns;
}
