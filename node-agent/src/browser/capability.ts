import { access, constants } from 'node:fs/promises';
import { chromium } from 'playwright-core';
import { chromiumArgs } from './flags.js';

/** Where Debian's `chromium` package puts its binary: the default `browser_executable`. */
export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';

/** Whether this node can run browser checks: `ok` with the browser version, or why not. */
export type BrowserSupport = { ok: true; version: string } | { ok: false; reason: string };

/**
 * Find out whether Chromium at `executable_path` really launches here (the node advertises the
 * `browser` capability only then): the binary must be executable and a headless launch with the
 * probe flags must succeed within `timeout_ms` (default 30 s). The browser is closed at once.
 */
export async function detectBrowser(executable_path = DEFAULT_CHROMIUM_PATH, timeout_ms = 30_000): Promise<BrowserSupport> {
  try {
    await access(executable_path, constants.X_OK);
  } catch {
    return { ok: false, reason: `no executable Chromium at ${executable_path} (install the chromium package, or set browser_executable)` };
  }
  try {
    const browser = await chromium.launch({
      executablePath: executable_path, headless: true, timeout: timeout_ms,
      args: chromiumArgs({ js_heap_max_mb: 128, renderer_process_limit: 1 }, '--vantage-browser=probe'),
      handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false,
    });
    const version = browser.version();
    await browser.close();
    return { ok: true, version };
  } catch (err) {
    return { ok: false, reason: `Chromium at ${executable_path} does not start: ${((err as Error).message ?? String(err)).split('\n')[0]}` };
  }
}
