import { DateTime } from 'luxon';

/*
 * Pure time rules of alerting (docs/api/alerting.md "Silences", "Maintenance windows", "Policies"),
 * for the alert engine and the results: no SQL, no clock (the instant is a parameter). Local
 * times are in the owner's IANA time zone through luxon, so recurrences keep their wall-clock
 * time across daylight-saving changes.
 */

/** What the rules need of a monitor. */
export interface MonitorRef {
  id: string;
  group_id: string | null;
  tags: string[];
}

/** A maintenance window as stored (instants as Date). */
export interface WindowRef {
  scope_type: 'monitor' | 'group' | 'tag' | 'all';
  scope_ids: string[];
  starts_at: Date;
  ends_at: Date;
  recurrence: 'none' | 'daily' | 'weekly' | 'monthly';
  recurrence_until: Date | null;
}

/** A silence as stored. */
export interface SilenceRef {
  id: string;
  monitor_id: string | null;
  starts_at: Date;
  ends_at: Date;
}

/** Whether the window's scope covers the monitor. */
export function windowCovers(w: Pick<WindowRef, 'scope_type' | 'scope_ids'>, m: MonitorRef): boolean {
  switch (w.scope_type) {
    case 'all': return true;
    case 'monitor': return w.scope_ids.includes(m.id);
    case 'group': return m.group_id !== null && w.scope_ids.includes(m.group_id);
    case 'tag': return m.tags.some((tag) => w.scope_ids.includes(tag));
  }
}

/**
 * The start of occurrence `k` (0 = the first window): the first start's local date and time moved
 * by k days, weeks or months in `tz` (a month without that day ends on its last day, as luxon
 * does). A local time skipped by a DST change moves forward by the gap.
 */
export function occurrenceStart(w: Pick<WindowRef, 'starts_at' | 'recurrence'>, tz: string, k: number): Date {
  const first = DateTime.fromJSDate(w.starts_at, { zone: tz });
  const unit = { none: 'days', daily: 'days', weekly: 'weeks', monthly: 'months' } as const;
  return first.plus({ [unit[w.recurrence]]: k }).toJSDate();
}

/**
 * The occurrence of `w` that contains `at` (start inclusive, end exclusive), or null.
 * Each occurrence lasts as long as the first (ends_at - starts_at); recurring ones start no later
 * than `recurrence_until` (inclusive).
 */
export function occurrenceAt(w: WindowRef, tz: string, at: Date): { starts_at: Date; ends_at: Date } | null {
  const duration_ms = w.ends_at.getTime() - w.starts_at.getTime();
  const t = at.getTime();
  if (t < w.starts_at.getTime()) return null;
  if (w.recurrence === 'none') return t < w.ends_at.getTime() ? { starts_at: w.starts_at, ends_at: w.ends_at } : null;
  const unit = { daily: 'days', weekly: 'weeks', monthly: 'months' } as const;
  // The calendar difference gives k within one; look at the neighbours for DST shifts and short months.
  const estimate = Math.floor(DateTime.fromJSDate(at, { zone: tz }).diff(DateTime.fromJSDate(w.starts_at, { zone: tz }), unit[w.recurrence]).as(unit[w.recurrence]));
  for (let k = estimate + 1; k >= Math.max(0, estimate - 1); k--) {
    const start = occurrenceStart(w, tz, k);
    if (start.getTime() > t) continue;
    // The latest occurrence that started by `at`: earlier ones ended before it began.
    if (w.recurrence_until && start.getTime() > w.recurrence_until.getTime()) return null;
    return t < start.getTime() + duration_ms ? { starts_at: start, ends_at: new Date(start.getTime() + duration_ms) } : null;
  }
  return null;
}

/**
 * The first occurrence of `w` starting after `after` (exclusive), or null when none is left
 * (a one-off window already started, or the next start is past `recurrence_until`). Starts are
 * found from the calendar difference as occurrenceAt does, then stepped forward.
 */
export function nextOccurrenceStart(w: Pick<WindowRef, 'starts_at' | 'recurrence' | 'recurrence_until'>, tz: string, after: Date): Date | null {
  const t = after.getTime();
  if (w.starts_at.getTime() > t) return w.starts_at;
  if (w.recurrence === 'none') return null;
  const unit = { daily: 'days', weekly: 'weeks', monthly: 'months' } as const;
  const estimate = Math.floor(DateTime.fromJSDate(after, { zone: tz }).diff(DateTime.fromJSDate(w.starts_at, { zone: tz }), unit[w.recurrence]).as(unit[w.recurrence]));
  for (let k = Math.max(0, estimate - 1); k <= estimate + 3; k++) {
    const start = occurrenceStart(w, tz, k);
    if (start.getTime() <= t) continue;
    return w.recurrence_until && start.getTime() > w.recurrence_until.getTime() ? null : start;
  }
  return null;
}

/**
 * Whether `monitor` is in maintenance at `at`: some window of the owner covers it and has an
 * occurrence containing `at`. `owner_tz` is the owner's IANA time zone (users.timezone).
 */
export function isInMaintenance(monitor: MonitorRef, windows: WindowRef[], owner_tz: string, at: Date): boolean {
  return windows.some((w) => windowCovers(w, monitor) && occurrenceAt(w, owner_tz, at) !== null);
}

/** A silence's status at `at`: upcoming before starts_at, active until ends_at (exclusive), then expired. */
export function silenceStatus(s: Pick<SilenceRef, 'starts_at' | 'ends_at'>, at: Date): 'upcoming' | 'active' | 'expired' {
  if (at.getTime() < s.starts_at.getTime()) return 'upcoming';
  return at.getTime() < s.ends_at.getTime() ? 'active' : 'expired';
}

/** The active silence that covers `monitor` at `at` (its own or an all-monitors one), the one ending last; or null. */
export function activeSilence<S extends SilenceRef>(monitor: Pick<MonitorRef, 'id'>, silences: S[], at: Date): S | null {
  let found: S | null = null;
  for (const s of silences) {
    if (s.monitor_id !== null && s.monitor_id !== monitor.id) continue;
    if (silenceStatus(s, at) !== 'active') continue;
    if (!found || s.ends_at > found.ends_at) found = s;
  }
  return found;
}

/**
 * Whether a policy's daily mute window (`mute_start`-`mute_end`, `HH:MM` local time in the
 * owner's time zone) contains `at`: start inclusive, end exclusive; a window whose end is not after
 * its start wraps past midnight (22:00-07:00). No window: never muted.
 */
export function isMuted(policy: { mute_start: string | null; mute_end: string | null }, owner_tz: string, at: Date): boolean {
  if (!policy.mute_start || !policy.mute_end) return false;
  const local = DateTime.fromJSDate(at, { zone: owner_tz });
  const minute = local.hour * 60 + local.minute;
  const toMinute = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
  const start = toMinute(policy.mute_start);
  const end = toMinute(policy.mute_end);
  return start < end ? minute >= start && minute < end : minute >= start || minute < end;
}
