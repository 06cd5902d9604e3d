import { access, constants } from 'node:fs/promises';
import { chromiumLaunch } from './sandbox.js';

/** Where Debian's `chromium` package puts its binary: the default `browser_executable`. */
export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Whether this node can run browser checks: `ok` with the browser version, the account Chromium
 * runs as and why it runs without its sandbox (null when sandboxed: sandbox.ts), or why not.
 */
export type BrowserSupport = { ok: true; version: string; user: string; sandbox_off: string | null } | { ok: false; reason: string };

/**
 * Find out whether Chromium at `executable_path` really launches here (the node advertises the
 * `browser` capability only then): the binary must be executable and a headless launch with the
 * probe flags must succeed within `timeout_ms` (default 30 s), sandboxed where the kernel allows
 * (sandbox.ts chromiumLaunch, which the browser pool then launches with). The browser is closed at once.
 */
export async function detectBrowser(executable_path = DEFAULT_CHROMIUM_PATH, timeout_ms = 30_000): Promise<BrowserSupport> {
  try {
    await access(executable_path, constants.X_OK);
  } catch {
    return { ok: false, reason: `no executable Chromium at ${executable_path} (install the chromium package, or set browser_executable)` };
  }
  try {
    const { version, user, sandbox_off } = await chromiumLaunch(executable_path, timeout_ms);
    return { ok: true, version, user, sandbox_off };
  } catch (err) {
    return { ok: false, reason: `Chromium at ${executable_path} does not start: ${((err as Error).message ?? String(err)).split('\n')[0]}` };
  }
}
