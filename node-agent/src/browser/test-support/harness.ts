import { existsSync } from 'node:fs';
import { browserMonitorConfigSchema } from '@vantage/shared-protocol';
import { silentLogger } from '../../probes/test-support/logger.js';
import type { TargetPolicy } from '../../probes/target-policy.js';
import { BrowserPool, type BrowserPoolOptions } from '../pool.js';
import { runBrowserCheck, type BrowserCheckOutcome } from '../run.js';

/** The Chromium the tests drive (VANTAGE_CHROMIUM, default Debian's /usr/bin/chromium). */
export const CHROMIUM_PATH = process.env.VANTAGE_CHROMIUM ?? '/usr/bin/chromium';

/** tap's `skip` option: false when Chromium is there, else the reason. */
export const SKIP_WITHOUT_CHROMIUM: string | false = existsSync(CHROMIUM_PATH)
  ? false
  : `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set VANTAGE_CHROMIUM)`;

/** Loopback allowed: tests load their own pages. */
export const ALLOW_LOOPBACK: TargetPolicy = { allow_private: true, allow_cidrs: [] };

/** A pool on the test Chromium with a silent log. */
export function testPool(options: Partial<Omit<BrowserPoolOptions, 'log'>> = {}): BrowserPool {
  return new BrowserPool({ executable_path: CHROMIUM_PATH, log: silentLogger(), ...options });
}

/** Run one browser check with `rawConfig` parsed as the API does (defaults filled). */
export function check(pool: BrowserPool, target: string, rawConfig: unknown = {}, opts: { policy?: TargetPolicy; signal?: AbortSignal } = {}): Promise<BrowserCheckOutcome> {
  const config = browserMonitorConfigSchema.parse(rawConfig);
  return runBrowserCheck(pool, target, config, { signal: opts.signal ?? AbortSignal.timeout(60_000), policy: opts.policy ?? ALLOW_LOOPBACK, log: silentLogger() });
}
