import type { BrowserType } from 'playwright-core';

/**
 * playwright-core's Chromium launcher, imported at the first launch rather than with the agent:
 * the package holds about 74 MB of resident memory once loaded (measured with Node 20), which a
 * node that never runs a browser check should not pay.
 * @throws Error when playwright-core cannot be loaded
 */
export async function chromiumType(): Promise<BrowserType> {
  return (await import('playwright-core')).chromium;
}
