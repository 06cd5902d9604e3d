import { z } from 'zod';
import { MEASURED_MS_MAX } from '../probe/outputs.js';
import { BROWSER_ASSERTION_KINDS } from '../monitors/config-browser.js';

/*
 * What a node reports for one browser check (docs/operators/agent.md "Browser checks"): the metadata
 * of a page load in a real browser. Durations are ms, sizes bytes.
 */

const ms = () => z.number().min(0).max(MEASURED_MS_MAX);
const bytes = () => z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** Most resources a browser check reports; a page that loads more keeps its first ones. */
export const BROWSER_RESOURCES_MAX = 500;
/** Most console errors a browser check reports, and the longest one, characters. */
export const BROWSER_CONSOLE_ERRORS_MAX = 50;
export const BROWSER_CONSOLE_ERROR_MAX_CHARS = 1000;
/** Longest resource URL reported, characters (longer ones are cut and end in `…`). */
export const BROWSER_URL_MAX_CHARS = 2048;

/** Resource types as the browser classifies a request (fetch counts as xhr; media, websocket, manifest... as other). */
export const BROWSER_RESOURCE_TYPES = ['script', 'stylesheet', 'image', 'font', 'xhr', 'document', 'other'] as const;

/**
 * One browser assertion's result: its `kind`, whether it held, and a sentence saying why. The
 * load budget (config `load_budget_ms` > 0) is reported as a `load_under_ms` result after the
 * configured ones.
 * @example { "kind": "element_present", "ok": false, "detail": "no element matches #checkout" }
 */
export const browserAssertionResultSchema = z.object({
  kind: z.enum(BROWSER_ASSERTION_KINDS),
  ok: z.boolean(),
  detail: z.string().max(1000),
});
export type BrowserAssertionResult = z.infer<typeof browserAssertionResultSchema>;

/**
 * One request the page made: `start_ms` from the navigation start, `duration_ms` until its
 * response ended (or it failed), `status` the HTTP status (0 when no response arrived),
 * `size_bytes` the bytes transferred (headers and body; 0 when unknown), `failed` when the status
 * is >= 400 or 0.
 * @example { "url": "https://example.com/logo.png", "type": "image", "status": 404, "duration_ms": 12.5, "start_ms": 80.1, "size_bytes": 210, "failed": true }
 */
export const browserResourceSchema = z.object({
  url: z.string().max(BROWSER_URL_MAX_CHARS + 1),
  type: z.enum(BROWSER_RESOURCE_TYPES),
  status: z.number().int().min(0).max(999),
  duration_ms: ms(),
  start_ms: ms(),
  size_bytes: bytes(),
  failed: z.boolean(),
});
export type BrowserResource = z.infer<typeof browserResourceSchema>;

/**
 * The waterfall summary of `resources` (omitted when there are none): their count and failed
 * count, the earliest start and the latest end (ms from the navigation start), the slowest
 * duration and the bytes transferred in total.
 */
export const browserWaterfallSchema = z.object({
  failed_count: z.number().int().min(0),
  first_resource_start_ms: ms(),
  last_resource_end_ms: ms(),
  resource_count: z.number().int().min(0),
  slowest_resource_ms: ms(),
  transfer_bytes: bytes(),
});
export type BrowserWaterfall = z.infer<typeof browserWaterfallSchema>;

/**
 * `browser` check metadata: `assertion_results` (configured order, then the load budget),
 * `console_errors` (console messages of level error and uncaught exceptions; the browser's own
 * "Failed to load resource" lines are left out, `failed_resources` says it), navigation timings
 * from the page's Navigation and Paint Timing entries (`dom_content_loaded_ms`, `first_paint_ms`,
 * `load_ms`: ms from the navigation start; null when the page did not get there),
 * `failed_resources` (the failed entries of `resources`), `resources`, `waterfall`, `har_url`
 * (the HAR 1.2 archive; empty string when unavailable) and `screenshot_url` (the full-page PNG;
 * empty string when disabled or failed).
 */
export const browserCheckOutputSchema = z.object({
  assertion_results: z.array(browserAssertionResultSchema).max(21),
  console_errors: z.array(z.string().max(BROWSER_CONSOLE_ERROR_MAX_CHARS + 1)).max(BROWSER_CONSOLE_ERRORS_MAX),
  dom_content_loaded_ms: ms().nullable(),
  first_paint_ms: ms().nullable(),
  load_ms: ms().nullable(),
  failed_resources: z.array(browserResourceSchema).max(BROWSER_RESOURCES_MAX),
  resources: z.array(browserResourceSchema).max(BROWSER_RESOURCES_MAX),
  waterfall: browserWaterfallSchema.optional(),
  har_url: z.string(),
  screenshot_url: z.string(),
});
export type BrowserCheckOutput = z.infer<typeof browserCheckOutputSchema>;
