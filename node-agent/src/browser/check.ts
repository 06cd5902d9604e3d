import { artifactPath, type BrowserCheckOutput } from '@vantage/shared-protocol';
import { failed, type Check, type CheckContext } from '../checks/types.js';
import type { ArtifactSpool } from '../outbox/artifact-spool.js';
import type { LazyBrowserPool } from './lazy-pool.js';
import { runBrowserCheck, type BrowserCheckOutcome } from './run.js';

const EMPTY_OUTPUT: BrowserCheckOutput = {
  assertion_results: [], console_errors: [], dom_content_loaded_ms: null, first_paint_ms: null, load_ms: null,
  failed_resources: [], resources: [], har_url: '', screenshot_url: '',
};

/**
 * Keep the run's HAR and screenshot in the spool and name them in the output by their artifact
 * path (shared-protocol artifactPath: the outbox holds the result until both are uploaded, and
 * the control plane serves them as signed URLs). An artifact the spool cannot take (full, or a
 * disk error) keeps its URL empty ("unavailable").
 */
async function keepArtifacts(outcome: BrowserCheckOutcome, spool: ArtifactSpool, ctx: CheckContext): Promise<void> {
  const keep = async (bytes: Buffer | null, field: 'har_url' | 'screenshot_url') => {
    if (!bytes || bytes.length === 0) return;
    try {
      const kept = await spool.put(bytes);
      if (kept) outcome.output[field] = artifactPath(ctx.monitor_id, kept.sha256);
      else ctx.log.warn({ field, size_bytes: bytes.length, spool_max_bytes: spool.max_bytes }, 'artifact spool full: artifact left out');
    } catch (err) {
      ctx.log.warn({ err, field }, 'could not keep an artifact for upload');
    }
  };
  await keep(outcome.artifacts.har, 'har_url');
  await keep(outcome.artifacts.screenshot, 'screenshot_url');
}

/**
 * The `browser` monitor check (docs/operators/agent.md "Browser checks"): runs the page load in the
 * node's pool under the run's signal and requester policy. The assertions are browser assertions,
 * reported in `output.assertion_results` (the result's `assertions` list holds HTTP-style
 * assertions only, so it stays empty). With a `spool`, the HAR and the screenshot are kept for
 * upload and `har_url` / `screenshot_url` name them (docs/architecture/node-agent.md "Artifacts");
 * without one they stay empty strings. Without a pool (a node that has no browser) every run
 * fails with class `internal`.
 */
export function createBrowserCheck(pool: LazyBrowserPool | null, spool: ArtifactSpool | null = null): Check<'browser'> {
  return {
    type: 'browser',
    async run(target, config, ctx) {
      if (!pool) return failed({ ...EMPTY_OUTPUT }, 'this node has no browser for browser checks', 'internal');
      const outcome = await runBrowserCheck(pool.get(), target, config, { signal: ctx.signal, policy: ctx.policy, log: ctx.log });
      if (spool && !ctx.signal.aborted) await keepArtifacts(outcome, spool, ctx);
      return { success: outcome.success, error: outcome.error, error_class: outcome.error_class, assertions: [], output: outcome.output };
    },
  };
}
