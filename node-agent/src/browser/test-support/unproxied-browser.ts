import { chromium, type Browser } from 'playwright-core';
import { chromiumArgs } from '../flags.js';
import { CHROMIUM_PATH } from './harness.js';

/**
 * A Chromium with the node's flags but without the target proxy and without the host-resolver
 * rule that, with no proxy, makes every host (IP literals included) unreachable: for benchmarks
 * that compare a page load with and without the proxy (never for checks: nothing holds its
 * requests to a policy).
 */
export function launchUnproxied(): Promise<Browser> {
  const args = chromiumArgs({ js_heap_max_mb: 256, renderer_process_limit: 2 }, '--vantage-browser=bench').filter((a) => !a.startsWith('--host-resolver-rules='));
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args });
}
