import { z } from 'zod';
import { textString } from '../parse.js';
import { MONITOR_LIMITS } from './types.js';

/*
 * Browser monitors: a real browser loads the target URL and the monitor is up only if
 * every assertion passes; the first failing detail becomes the error.
 */

/** Viewport bounds and defaults, CSS pixels (docs/api/conventions.md): out-of-range values are clamped, not refused. */
export const BROWSER_VIEWPORT = { width_min: 320, width_max: 3840, width_default: 1366, height_min: 240, height_max: 2160, height_default: 768 } as const;

/** Browser assertion kinds. */
export const BROWSER_ASSERTION_KINDS = ['renderable', 'resources_all_ok', 'load_under_ms', 'no_console_errors', 'element_present', 'text_present'] as const;

const clamped = (min: number, max: number, fallback: number) =>
  z.number().int().transform((v) => Math.min(max, Math.max(min, v))).default(fallback);

/**
 * One browser assertion: `kind` required; `selector` (a non-empty CSS selector) only
 * and always for element_present; `value` only and always for load_under_ms (ms, a number >= 0)
 * and text_present (the required text, non-empty).
 * @example { "kind": "element_present", "selector": "#checkout" }
 * @example { "kind": "load_under_ms", "value": 3000 }
 */
export const browserAssertionSchema = z.strictObject({
  kind: z.enum(BROWSER_ASSERTION_KINDS),
  selector: textString().trim().min(1).max(1024).optional(),
  value: z.union([z.number().min(0).max(600_000), textString().min(1).max(1024)]).optional(),
}).superRefine((a, ctx) => {
  const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  if (a.kind === 'element_present' && a.selector === undefined) issue('selector', 'element_present needs a CSS selector');
  if (a.kind !== 'element_present' && a.selector !== undefined) issue('selector', 'only element_present takes a selector');
  if (a.kind === 'load_under_ms' && typeof a.value !== 'number') issue('value', 'load_under_ms needs a number of milliseconds');
  if (a.kind === 'text_present' && typeof a.value !== 'string') issue('value', 'text_present needs the text to find');
  if (a.kind !== 'load_under_ms' && a.kind !== 'text_present' && a.value !== undefined) issue('value', `${a.kind} takes no value`);
});
export type BrowserAssertion = z.infer<typeof browserAssertionSchema>;

/**
 * `browser` monitor config (every field optional): `wait_until` load (default),
 * domcontentloaded or networkidle; `load_budget_ms` (>= 0, default 8000; 0 = no budget
 * assertion; at most 120000, ours); `screenshot` (full-page PNG, default false); `viewport`
 * `{width, height}` (default 1366x768, clamped to 320..3840 and 240..2160); `assertions[]` (at
 * most 20); `timeout_ms` (ours: the whole page load, 5000-60000, default 30000).
 * @example { "wait_until": "networkidle", "viewport": { "width": 390, "height": 844 }, "assertions": [{ "kind": "text_present", "value": "Checkout" }] }
 */
export const browserMonitorConfigSchema = z.strictObject({
  wait_until: z.enum(['load', 'domcontentloaded', 'networkidle']).default('load'),
  load_budget_ms: z.number().int().min(0).max(120_000).default(8000),
  screenshot: z.boolean().default(false),
  viewport: z.strictObject({
    width: clamped(BROWSER_VIEWPORT.width_min, BROWSER_VIEWPORT.width_max, BROWSER_VIEWPORT.width_default),
    height: clamped(BROWSER_VIEWPORT.height_min, BROWSER_VIEWPORT.height_max, BROWSER_VIEWPORT.height_default),
  }).default({ width: BROWSER_VIEWPORT.width_default, height: BROWSER_VIEWPORT.height_default }),
  assertions: z.array(browserAssertionSchema).max(MONITOR_LIMITS.assertions_max).default([]),
  timeout_ms: z.number().int().min(5000).max(60_000).default(30_000),
});
export type BrowserMonitorConfig = z.infer<typeof browserMonitorConfigSchema>;
