/** Browser checks on the node (docs/operators/agent.md "Browser checks"). */
export { BrowserPool, BrowserCrashedError, type BrowserPoolOptions } from './pool.js';
export { runBrowserCheck, type BrowserCheckOutcome, type BrowserCheckContext } from './run.js';
export { detectBrowser, DEFAULT_CHROMIUM_PATH, type BrowserSupport } from './capability.js';
export { evaluateBrowserAssertions, type PageFacts } from './assertions.js';
export { HAR_MAX_BYTES } from './har.js';
export { LazyBrowserPool } from './lazy-pool.js';
export { createBrowserCheck } from './check.js';
export { browserAdvertised, browserExecutable } from './advertise.js';
export { chromiumLaunch, type ChromiumLaunch } from './sandbox.js';
