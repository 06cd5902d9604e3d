import { Cron } from 'croner';
import { z } from 'zod';
import { textString } from '../parse.js';

/*
 * Heartbeat monitors ( "Heartbeat: schedule config"): the monitored job calls its
 * check-in URL; the monitor fails when no check-in arrives by the expected time plus a grace.
 * The schedule is a fixed period or a cron expression in a time zone (validated with croner).
 */

/** Bounds of a heartbeat schedule, seconds (ours). */
export const HEARTBEAT_LIMITS = {
  period_s_min: 60,
  period_s_max: 30 * 24 * 3600,
  period_s_default: 300,
  grace_s_max: 7 * 24 * 3600,
  grace_s_default: 60,
} as const;

/** True for an IANA time zone name the runtime knows (`Europe/Paris`, `UTC`). */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** A five-field cron schedule (minute hour day-of-month month day-of-week, or @daily…) in `timezone`. */
function cronOf(expression: string, timezone: string): Cron {
  return new Cron(expression, { timezone, paused: true, mode: '5-part' });
}

/**
 * Why `expression` is not a usable five-field cron schedule in `timezone`, or null when it is
 * (it parses and fires at least once in the next 366 days).
 */
export function cronFault(expression: string, timezone: string): string | null {
  try {
    return cronOf(expression, timezone).nextRun() === null ? 'never fires' : null;
  } catch (err) {
    return (err as Error).message.replace(/^CronPattern: /, '');
  }
}

/** A validated heartbeat schedule: a fixed period, or a cron expression in a time zone; both with a grace. */
export type HeartbeatMonitorConfig =
  | { period_s: number; grace_s: number }
  | { cron: string; timezone: string; grace_s: number };

/**
 * `heartbeat` monitor config: either a fixed `period_s` (60 s to 30 days; the default, 300, when
 * neither is given) or a five-field `cron` expression (`0 3 * * *`, `@hourly`) read in `timezone`
 * (IANA, default UTC); plus `grace_s` (0 s to 7 days, default 60), how late a check-in may be
 * before the monitor fails. `period_s` and `cron` exclude each other.
 * @example { "period_s": 3600, "grace_s": 300 }
 * @example { "cron": "0 3 * * *", "timezone": "Europe/Paris", "grace_s": 900 }
 */
export const heartbeatMonitorConfigSchema = z.strictObject({
  period_s: z.number().int().min(HEARTBEAT_LIMITS.period_s_min).max(HEARTBEAT_LIMITS.period_s_max).optional(),
  cron: textString().trim().min(1).max(200).optional(),
  timezone: textString().refine(isTimeZone, { message: 'must be an IANA time zone such as Europe/Paris' }).optional(),
  grace_s: z.number().int().min(0).max(HEARTBEAT_LIMITS.grace_s_max).default(HEARTBEAT_LIMITS.grace_s_default),
}).superRefine((c, ctx) => {
  if (c.cron !== undefined && c.period_s !== undefined) ctx.addIssue({ code: 'custom', path: ['cron'], message: 'give either period_s or cron, not both' });
  if (c.cron === undefined && c.timezone !== undefined) ctx.addIssue({ code: 'custom', path: ['timezone'], message: 'timezone applies only to a cron schedule' });
  if (c.cron !== undefined && (c.timezone === undefined || isTimeZone(c.timezone))) {
    const fault = cronFault(c.cron, c.timezone ?? 'UTC');
    if (fault) ctx.addIssue({ code: 'custom', path: ['cron'], message: `not a valid five-field cron expression: ${fault}` });
  }
}).transform((c): HeartbeatMonitorConfig => (c.cron !== undefined
  ? { cron: c.cron, timezone: c.timezone ?? 'UTC', grace_s: c.grace_s }
  : { period_s: c.period_s ?? HEARTBEAT_LIMITS.period_s_default, grace_s: c.grace_s }));

/**
 * The interval (s) a heartbeat schedule implies: `period_s`, or for a cron schedule the shortest
 * gap between its next 32 firings after `from` (a weekday-only schedule at 03:00 gives 86400).
 */
export function heartbeatIntervalS(config: HeartbeatMonitorConfig, from: Date = new Date()): number {
  if ('period_s' in config) return config.period_s;
  const runs = cronOf(config.cron, config.timezone).nextRuns(33, from);
  let gap = Infinity;
  for (let i = 1; i < runs.length; i++) gap = Math.min(gap, (runs[i]!.getTime() - runs[i - 1]!.getTime()) / 1000);
  // A schedule that fires once in the look-ahead (a yearly date): the time until that firing.
  if (!Number.isFinite(gap)) gap = runs.length ? Math.max(60, (runs[0]!.getTime() - from.getTime()) / 1000) : HEARTBEAT_LIMITS.period_s_max;
  return Math.max(60, Math.round(gap));
}

/**
 * When the next check-in is due after `after` (a check-in time, or the monitor's start): `after`
 * plus `period_s`, or the cron schedule's next firing after `after`. The monitor fails when none
 * arrives by the returned time plus `grace_s`.
 * @returns null when a cron schedule never fires again
 */
export function nextHeartbeatDue(config: HeartbeatMonitorConfig, after: Date): Date | null {
  if ('period_s' in config) return new Date(after.getTime() + config.period_s * 1000);
  return cronOf(config.cron, config.timezone).nextRun(after);
}
