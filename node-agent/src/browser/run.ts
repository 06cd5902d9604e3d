import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BROWSER_CONSOLE_ERRORS_MAX, BROWSER_CONSOLE_ERROR_MAX_CHARS, type BrowserCheckOutput, type BrowserMonitorConfig, type CheckFailureClass,
} from '@vantage/shared-protocol';
import type { Logger } from 'pino';
import type { Page } from 'playwright-core';
import { resolveTarget } from '../probes/resolve.js';
import type { TargetPolicy } from '../probes/target-policy.js';
import { evaluateBrowserAssertions, type PageFacts } from './assertions.js';
import { guardRequests, type Refusal } from './guard.js';
import { readHar } from './har.js';
import { PAGE_FACTS_SCRIPT, SELECTOR_SCRIPT, type PageSnapshot } from './page-scripts.js';
import { BrowserCrashedError, type BrowserPool } from './pool.js';
import { ResourceCollector, waterfallOf } from './resources.js';

/** What one browser check run found; `artifacts` are the bytes behind `har_url` and `screenshot_url`. */
export interface BrowserCheckOutcome {
  success: boolean;
  error: string | null;
  error_class: CheckFailureClass | null;
  output: BrowserCheckOutput;
  artifacts: { har: Buffer | null; screenshot: Buffer | null };
}

export interface BrowserCheckContext {
  /** Aborted when the run's time is up or the node stops. */
  signal: AbortSignal;
  policy: TargetPolicy;
  log: Logger;
}

/** Bound on each step after the navigation (evaluations, screenshot), ms. */
const STEP_TIMEOUT_MS = 10_000;

const emptyOutput = (): BrowserCheckOutput => ({
  assertion_results: [], console_errors: [], dom_content_loaded_ms: null, first_paint_ms: null, load_ms: null,
  failed_resources: [], resources: [], har_url: '', screenshot_url: '',
});
const firstLine = (err: unknown) => ((err as Error)?.message ?? String(err)).split('\n')[0]!.replace(/^[a-zA-Z]+\.[a-zA-Z]+: /, '').slice(0, 1000);
const roundMs = (v: number | null | undefined) => (typeof v === 'number' && v > 0 ? Math.round(v * 10) / 10 : null);

/**
 * Run one browser check (docs/operators/agent.md "Browser checks"): load `target` (http or https)
 * in a fresh context of the pool's browser with the config's viewport, wait for `wait_until`
 * (at most `timeout_ms`), gather the page's timings, resources and console errors, evaluate the
 * assertions (and the load budget), take the full-page PNG if configured, and keep the HAR 1.2
 * archive. Every request the page makes is held to `ctx.policy` (guard.ts). Never rejects: the
 * monitor is up only if every assertion passes; otherwise `error` is the first failing detail
 * (`assertion`), or why the page did not load (`target`, `timeout`, `blocked`), or the browser's
 * crash (`internal`). The URLs stay empty strings; the caller keeps `artifacts` for upload and
 * names them (check.ts).
 */
export async function runBrowserCheck(pool: BrowserPool, target: string, config: BrowserMonitorConfig, ctx: BrowserCheckContext): Promise<BrowserCheckOutcome> {
  const fail = (error: string, error_class: CheckFailureClass, output = emptyOutput()): BrowserCheckOutcome =>
    ({ success: false, error: error.slice(0, 2000), error_class, output, artifacts: { har: null, screenshot: null } });
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return fail(`target ${JSON.stringify(target.slice(0, 200))} is not a URL`, 'rejected');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return fail(`target must be an http or https URL, not ${url.protocol}`, 'rejected');
  // The top-level URL is checked before the browser is involved; the guard checks every request again.
  const top = await resolveTarget(url.hostname, 'auto', ctx.policy);
  if (!top.ok) return fail(top.error, top.error_class);

  const dir = await mkdtemp(join(tmpdir(), 'vantage-browser-'));
  const har_path = join(dir, 'check.har');
  try {
    const context_options = {
      viewport: config.viewport, recordHar: { path: har_path, content: 'omit' as const }, serviceWorkers: 'block' as const, acceptDownloads: false,
    };
    let outcome: BrowserCheckOutcome;
    try {
      outcome = await pool.use(context_options, ctx.signal, async (context) => {
        const refused = await guardRequests(context, ctx.policy);
        // Closing the context ends the pending calls as a rule; the pool kills the browser when
        // the check still has not ended after its grace (pool.ts abort_grace_ms).
        const onAbort = () => { void context.close().catch(() => undefined); };
        if (ctx.signal.aborted) throw ctx.signal.reason;
        ctx.signal.addEventListener('abort', onAbort, { once: true });
        try {
          return await loadAndInspect(await context.newPage(), target, config, refused);
        } finally {
          ctx.signal.removeEventListener('abort', onAbort);
        }
      });
    } catch (err) {
      // Past its deadline a check timed out, even when the pool killed a hung browser to end it.
      if (ctx.signal.aborted) return fail(firstLine(ctx.signal.reason), 'timeout');
      if (err instanceof BrowserCrashedError) return fail(err.message, 'internal');
      ctx.log.warn({ err, target }, 'browser check failed');
      return fail(`browser error: ${firstLine(err)}`, 'internal');
    }
    if (ctx.signal.aborted) return fail(firstLine(ctx.signal.reason), 'timeout', outcome.output);
    outcome.artifacts.har = await readHar(har_path);
    return outcome;
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

async function loadAndInspect(page: Page, target: string, config: BrowserMonitorConfig, refused: Refusal[]): Promise<BrowserCheckOutcome> {
  page.setDefaultTimeout(STEP_TIMEOUT_MS);
  const console_errors: string[] = [];
  const addError = (text: string) => {
    if (console_errors.length < BROWSER_CONSOLE_ERRORS_MAX) console_errors.push(text.length > BROWSER_CONSOLE_ERROR_MAX_CHARS ? `${text.slice(0, BROWSER_CONSOLE_ERROR_MAX_CHARS)}…` : text);
  };
  // The browser's own "Failed to load resource" lines duplicate failed_resources.
  page.on('console', (m) => { if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) addError(m.text()); });
  page.on('pageerror', (e) => addError(`Uncaught ${e.name}: ${e.message}`));
  const collector = new ResourceCollector(page);

  let navigation_error: string | null = null;
  let error_class: CheckFailureClass | null = null;
  let document_status: number | null = null;
  let ready_epoch: number | null = null;
  try {
    const response = await page.goto(target, { waitUntil: config.wait_until, timeout: config.timeout_ms });
    ready_epoch = Date.now();
    document_status = response?.status() ?? null;
  } catch (err) {
    navigation_error = firstLine(err);
    const refusal = navigation_error.includes('ERR_BLOCKED_BY_CLIENT') ? (refused.find((r) => r.url === target) ?? refused[0]) : undefined;
    if (refusal) {
      navigation_error = refusal.reason;
      error_class = 'blocked';
    } else {
      error_class = /Timeout \d+ms exceeded/.test(navigation_error) ? 'timeout' : 'target';
    }
  }

  const seen = await page.evaluate<PageSnapshot>(PAGE_FACTS_SCRIPT).catch(() => null);

  const selectors = new Map<string, boolean | string>();
  for (const a of config.assertions) {
    if (a.kind !== 'element_present' || !a.selector || selectors.has(a.selector)) continue;
    selectors.set(a.selector, await page.evaluate<boolean | string>(SELECTOR_SCRIPT(a.selector)).catch((e: unknown) => firstLine(e)));
  }

  let screenshot: Buffer | null = null;
  if (config.screenshot && seen) screenshot = await page.screenshot({ fullPage: true, type: 'png', animations: 'disabled' }).catch(() => null);

  const resources = await collector.resources(seen?.time_origin ?? null);
  const failed_resources = resources.filter((r) => r.failed);
  const dcl = roundMs(seen?.dcl);
  const load = roundMs(seen?.load);
  let ready_ms: number | null = null;
  if (navigation_error === null && seen) {
    ready_ms = config.wait_until === 'load' ? load : config.wait_until === 'domcontentloaded' ? dcl : roundMs((ready_epoch ?? 0) - seen.time_origin);
  }
  const facts: PageFacts = {
    navigation_error, document_status, rendered: seen?.rendered ?? false, ready_ms, failed_resources, console_errors, selectors, text: seen?.text ?? '',
  };
  const assertion_results = evaluateBrowserAssertions(config, facts);
  const output: BrowserCheckOutput = {
    assertion_results, console_errors, dom_content_loaded_ms: dcl, first_paint_ms: roundMs(seen?.first_paint), load_ms: load,
    failed_resources, resources, waterfall: waterfallOf(resources), har_url: '', screenshot_url: '',
  };
  if (output.waterfall === undefined) delete output.waterfall;
  const artifacts = { har: null, screenshot };
  if (navigation_error !== null) return { success: false, error: navigation_error, error_class, output, artifacts };
  // As for http checks, an error status of the page itself is the target's failure whatever the assertions say.
  if (document_status !== null && document_status >= 400) return { success: false, error: `the page answered HTTP ${document_status}`, error_class: 'target', output, artifacts };
  const failing = assertion_results.find((r) => !r.ok);
  if (failing) return { success: false, error: failing.detail, error_class: 'assertion', output, artifacts };
  return { success: true, error: null, error_class: null, output, artifacts };
}
