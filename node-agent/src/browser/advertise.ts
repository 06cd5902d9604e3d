import { existsSync } from 'node:fs';
import type { Logger } from 'pino';
import { DEFAULT_CHROMIUM_PATH, detectBrowser, type BrowserSupport } from './capability.js';

/** The Chromium browser checks use: `browser_executable`, else /usr/bin/chromium (null when that is absent). */
export function browserExecutable(configured: string | undefined): string | null {
  if (configured) return configured;
  return existsSync(DEFAULT_CHROMIUM_PATH) ? DEFAULT_CHROMIUM_PATH : null;
}

// One look per binary and process: tests start many agents in one process.
const detected = new Map<string, Promise<BrowserSupport>>();

/**
 * Whether this node advertises `browser` (docs/operators/agent.md "Browser checks"): only when
 * the binary of {@link browserExecutable} is a Chromium that names its version (capability.ts
 * detectBrowser; whether it runs sandboxed is decided by the first browser check's launch). Logs
 * why not: a warning when `browser_executable` was configured, info when the default is simply absent.
 */
export async function browserAdvertised(configured: string | undefined, log: Logger): Promise<boolean> {
  const executable = browserExecutable(configured);
  if (!executable) {
    log.info({ type: 'browser', executable: DEFAULT_CHROMIUM_PATH }, 'check type not advertised: no Chromium (set browser_executable to enable browser checks)');
    return false;
  }
  let pending = detected.get(executable);
  if (!pending) detected.set(executable, pending = detectBrowser(executable));
  const support = await pending;
  if (support.ok) {
    log.info({ type: 'browser', executable, version: support.version }, 'browser checks available');
    return true;
  }
  detected.delete(executable);
  log.warn({ type: 'browser', reason: support.reason }, 'check type not advertised');
  return false;
}
