/*
 * Bounds of the notification templates the product renders: an alert policy's `title_template`
 * and `body_template`, an SMS channel's `body_template` (docs/api/alerting.md "Templates").
 * Blocks nested inside one another multiply a render's work (a `range` inside a `range` visits
 * every pair of items), so the shape is bounded when a template is saved, and every render
 * counts its steps and its output and stops at a bound, whatever the template and the data.
 */

/**
 * Template bounds (ours). Sizes: a policy's title at most 1024 characters and body 8192
 * (ALERT_POLICY_LIMITS), an SMS body template 4096. Checked when a template is saved (400)
 * and again each time it is rendered (a stored template outside them is not used: the default
 * template is rendered instead and the reason is recorded):
 * - `block_depth_max`: `if`, `range` and `with` blocks nested at most 8 deep;
 * - `range_depth_max`: at most 2 `range` blocks nested (a list inside a list);
 * - `render_steps_max`: one render visits at most 20000 template tokens (a text, a field or a
 *   block, counted again on each iteration of every enclosing `range`); the default body with
 *   100 failing nodes takes under 1000.
 * Output is cut at the renderer's character bound (title 256, body 4000, SMS body 8192).
 */
export const ALERT_TEMPLATE_LIMITS = {
  block_depth_max: 8,
  range_depth_max: 2,
  render_steps_max: 20_000,
} as const;
