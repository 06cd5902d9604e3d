import type { BrowserCheckOutput } from '@vantage/shared-protocol';
import { failed, type Check } from '../checks/types.js';
import type { LazyBrowserPool } from './lazy-pool.js';
import { runBrowserCheck } from './run.js';

const EMPTY_OUTPUT: BrowserCheckOutput = {
  assertion_results: [], console_errors: [], dom_content_loaded_ms: null, first_paint_ms: null, load_ms: null,
  failed_resources: [], resources: [], har_url: '', screenshot_url: '',
};

/**
 * The `browser` monitor check (docs/operators/agent.md "Browser checks"): runs the page load in the
 * node's pool under the run's signal and requester policy. The assertions are browser assertions,
 * reported in `output.assertion_results` (the result's `assertions` list holds HTTP-style
 * assertions only, so it stays empty). `har_url` and `screenshot_url` stay empty strings
 * ("unavailable"): the artifacts are not uploaded. Without a pool (a node that has no browser) every
 * run fails with class `internal`.
 */
export function createBrowserCheck(pool: LazyBrowserPool | null): Check<'browser'> {
  return {
    type: 'browser',
    async run(target, config, ctx) {
      if (!pool) return failed({ ...EMPTY_OUTPUT }, 'this node has no browser for browser checks', 'internal');
      const outcome = await runBrowserCheck(pool.get(), target, config, { signal: ctx.signal, policy: ctx.policy, log: ctx.log });
      return { success: outcome.success, error: outcome.error, error_class: outcome.error_class, assertions: [], output: outcome.output };
    },
  };
}
