import { activeSilence, isInMaintenance, isMuted, type SilenceRef, type WindowRef } from './windows.js';

/*
 * Pure rules of the alert engine (docs/api/alerting.md "Alert events"): which channels a step
 * pages, when the next step is due, what holds a notification back. No SQL, no clock.
 */

/** What the rules read of a policy. */
export interface StepPolicy {
  channel_ids: string[];
  escalation_levels: Array<{ level_index: number; after_seconds: number; channel_ids: string[]; schedule_ids?: string[] }>;
}

/** The channels step `level` pages: 0 the first notification's, k escalation level k's (none when absent). */
export function levelChannels(policy: StepPolicy, level: number): string[] {
  if (level === 0) return policy.channel_ids;
  return policy.escalation_levels.find((l) => l.level_index === level)?.channel_ids ?? [];
}

/**
 * The on-call schedules step `level` pages (their person on call at that moment): none for the
 * first notification (0), escalation level k's `schedule_ids` for k (docs/api/teams.md "On-call schedules").
 */
export function levelSchedules(policy: StepPolicy, level: number): string[] {
  if (level === 0) return [];
  return policy.escalation_levels.find((l) => l.level_index === level)?.schedule_ids ?? [];
}

/**
 * The step after `level`, done at `done_at`: the next escalation level (by level_index) due
 * `after_seconds` after it, or null when no level is left.
 */
export function nextStep(policy: StepPolicy, level: number, done_at: Date): { level: number; due_at: Date } | null {
  const next = [...policy.escalation_levels].sort((a, b) => a.level_index - b.level_index).find((l) => l.level_index > level);
  return next ? { level: next.level_index, due_at: new Date(done_at.getTime() + next.after_seconds * 1000) } : null;
}

/** What can hold a notification back at one instant. */
export interface SuppressionContext {
  monitor: { id: string; group_id: string | null; tags: string[]; state: string };
  policy: { mute_start: string | null; mute_end: string | null };
  silences: SilenceRef[];
  windows: WindowRef[];
  owner_tz: string;
}

/**
 * Why a page at `at` is held back: `maintenance` (the monitor is in maintenance or a window
 * covers it), `silence` (an active silence of the monitor or of all the owner's monitors),
 * `mute` (the policy's daily mute window in the owner's zone); null when it may be sent.
 */
export function suppressionAt(ctx: SuppressionContext, at: Date): 'maintenance' | 'silence' | 'mute' | null {
  if (ctx.monitor.state === 'maintenance' || isInMaintenance(ctx.monitor, ctx.windows, ctx.owner_tz, at)) return 'maintenance';
  if (activeSilence(ctx.monitor, ctx.silences, at)) return 'silence';
  if (isMuted(ctx.policy, ctx.owner_tz, at)) return 'mute';
  return null;
}

/**
 * Whether the last `n` judged rounds (newest first) all failed: down, or degraded too when the
 * policy fires on degraded. Fewer than `n` judged rounds never fire.
 */
export function thresholdReached(verdicts: string[], n: number, fire_on_degraded: boolean): boolean {
  if (verdicts.length < n) return false;
  return verdicts.slice(0, n).every((v) => v === 'down' || (fire_on_degraded && v === 'degraded'));
}

/** The idempotency key (delivery message id) of one notification: one per event, level, channel and kind. */
export function notificationKey(event_id: string, level: number, channel_id: string, kind: 'firing' | 'acknowledged' | 'resolved'): string {
  return `${event_id}:${level}:${channel_id}:${kind}`;
}
