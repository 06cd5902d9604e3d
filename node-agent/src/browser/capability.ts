import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';

/** Where Debian's `chromium` package puts its binary: the default `browser_executable`. */
export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';

/** Whether this node can run browser checks: `ok` with the browser's version, or why not. */
export type BrowserSupport = { ok: true; version: string } | { ok: false; reason: string };

/** `Chromium 156.0.8078.108 built on Debian…`, `Google Chrome 131.0.6778.85`, `Chromium 120.0.6099.0 snap`. */
const VERSION_LINE = /\b(?:Chromium|Chrome)(?: for Testing)?\s+(\d+\.\d+\.\d+\.\d+)\b/;

/**
 * Find out whether `executable_path` is a Chromium this node can use for browser checks (the node
 * advertises the `browser` capability only then): the binary must be executable and
 * `<binary> --version` must name a Chromium or Chrome version within `timeout_ms` (default 10 s).
 * That costs one short process (about 0.1 s of CPU) instead of a headless launch (2-3 s, twice
 * when the sandboxed launch is tried first): the sandbox is decided by the first real launch,
 * which the first browser check makes (sandbox.ts chromiumLaunch; a Chromium that names its
 * version but cannot start fails that check with the reason).
 */
export async function detectBrowser(executable_path = DEFAULT_CHROMIUM_PATH, timeout_ms = 10_000): Promise<BrowserSupport> {
  try {
    await access(executable_path, constants.X_OK);
  } catch {
    return { ok: false, reason: `no executable Chromium at ${executable_path} (install the chromium package, or set browser_executable)` };
  }
  let out: string;
  try {
    out = await new Promise<string>((resolve, reject) => {
      execFile(executable_path, ['--version'], { timeout: timeout_ms, maxBuffer: 64 * 1024 }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
    });
  } catch (err) {
    return { ok: false, reason: `Chromium at ${executable_path} does not run: ${((err as Error).message ?? String(err)).split('\n')[0]}` };
  }
  const version = VERSION_LINE.exec(out)?.[1];
  if (!version) return { ok: false, reason: `${executable_path} is not a Chromium: \`--version\` printed ${JSON.stringify(out.trim().slice(0, 80))}` };
  return { ok: true, version };
}
