import { DateTime } from 'luxon';
import rrule from 'rrule';
import type { OncallNow, OncallRotation } from '@vantage/shared-protocol';

/*
 * Who is on call (docs/api/teams.md "On-call schedules"): pure rules, no SQL, no clock. Shifts are
 * measured in the schedule's local wall-clock time: the recurrence of handoffs (rrule, RFC 5545)
 * runs on "floating" local times, each turned into an instant in the schedule's IANA zone, so a
 * 09:00 handoff stays 09:00 local across daylight-saving changes (that day's shift is an hour
 * shorter or longer). A local handoff time a spring-forward gap skips moves forward by the gap.
 */

/** An override as the rules read it. */
export interface OverrideRef {
  id: string;
  user_id: string;
  replaces_user_id: string | null;
  starts_at: Date;
  ends_at: Date;
  created_at: Date;
}

// rrule is CommonJS: its named exports come through the default import.
const { RRule } = rrule;
const FREQ = { hours: RRule.HOURLY, days: RRule.DAILY, weeks: RRule.WEEKLY } as const;
const UNIT_MS = { hours: 3_600_000, days: 86_400_000, weeks: 7 * 86_400_000 } as const;

/** `at` as a floating local time in `tz`: a Date whose UTC fields are the local wall-clock fields. */
function floating(at: Date, tz: string): Date {
  const d = DateTime.fromJSDate(at, { zone: tz });
  return new Date(Date.UTC(d.year, d.month - 1, d.day, d.hour, d.minute, d.second, d.millisecond));
}

/** The instant of floating local time `f` in `tz` (a skipped local time moves forward by the gap). */
function instant(f: Date, tz: string): Date {
  return DateTime.fromObject({
    year: f.getUTCFullYear(), month: f.getUTCMonth() + 1, day: f.getUTCDate(),
    hour: f.getUTCHours(), minute: f.getUTCMinutes(), second: f.getUTCSeconds(), millisecond: f.getUTCMilliseconds(),
  }, { zone: tz }).toJSDate();
}

/** The first handoff of `rotation` as a floating local time. */
function firstHandoff(rotation: OncallRotation): Date {
  const [y, m, d] = rotation.starts_on.split('-').map(Number) as [number, number, number];
  const [hh, mm] = rotation.handoff_time.split(':').map(Number) as [number, number];
  return new Date(Date.UTC(y, m - 1, d, hh, mm));
}

/** The handoffs of `rotation` (floating local times): every `shift_length` `shift_unit` from its first. */
function handoffs(rotation: OncallRotation): InstanceType<typeof RRule> {
  return new RRule({ freq: FREQ[rotation.shift_unit], interval: rotation.shift_length, dtstart: firstHandoff(rotation) });
}

/** When `rotation` starts, as an instant in `tz`. */
export function rotationStart(rotation: OncallRotation, tz: string): Date {
  return instant(firstHandoff(rotation), tz);
}

/**
 * The shift of `rotation` that contains `at` (start inclusive, end exclusive) in zone `tz`: its
 * participant (turns go round the list in order) and bounds; null before the rotation starts.
 */
export function shiftAt(rotation: OncallRotation, tz: string, at: Date): { user_id: string; start: Date; end: Date } | null {
  const local = floating(at, tz);
  const rule = handoffs(rotation);
  let start = rule.before(local, true);
  // A handoff in a spring-forward gap happens later than its floating time says: not yet begun.
  if (start && instant(start, tz) > at) start = rule.before(start, false);
  if (!start) return null;
  const end = rule.after(start, false)!;
  // Floating time has no DST: shift k starts exactly k shift lengths after the first handoff.
  const k = Math.round((start.getTime() - firstHandoff(rotation).getTime()) / (rotation.shift_length * UNIT_MS[rotation.shift_unit]));
  return { user_id: rotation.participants[k % rotation.participants.length]!, start: instant(start, tz), end: instant(end, tz) };
}

/**
 * Who is on call at `at` on a schedule (docs/api/teams.md "Who is on call"): the rotation that
 * started last (among those started; a later one in the list on a tie) gives the base shift; an
 * override covering `at` wins over it (the most recently created one when several do), one with
 * `replaces_user_id` only while that participant is the base. Nobody (`user_id` null) when no
 * rotation has started and no override applies.
 */
export function onCallAt(schedule: { time_zone: string; rotations: OncallRotation[] }, overrides: OverrideRef[], at: Date): OncallNow {
  const tz = schedule.time_zone;
  let base: { index: number; begun: number } | null = null;
  schedule.rotations.forEach((r, index) => {
    const begun = rotationStart(r, tz).getTime();
    if (begun <= at.getTime() && (!base || begun >= base.begun)) base = { index, begun };
  });
  const chosen = base as { index: number; begun: number } | null;
  const shift = chosen ? shiftAt(schedule.rotations[chosen.index]!, tz, at) : null;
  const override = overrides
    .filter((o) => o.starts_at <= at && at < o.ends_at && (o.replaces_user_id === null || o.replaces_user_id === shift?.user_id))
    .sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || (a.id < b.id ? 1 : -1))[0];
  if (override) {
    return {
      at: at.toISOString(), user_id: override.user_id, source: 'override', rotation_index: null, override_id: override.id,
      shift_start: override.starts_at.toISOString(), shift_end: override.ends_at.toISOString(),
    };
  }
  if (!shift || !chosen) return { at: at.toISOString(), user_id: null, source: null, rotation_index: null, override_id: null, shift_start: null, shift_end: null };
  return {
    at: at.toISOString(), user_id: shift.user_id, source: 'rotation', rotation_index: chosen.index, override_id: null,
    shift_start: shift.start.toISOString(), shift_end: shift.end.toISOString(),
  };
}

/** Every user id a schedule's rotations name (the participants an override may replace). */
export function participantsOf(rotations: OncallRotation[]): Set<string> {
  return new Set(rotations.flatMap((r) => r.participants));
}
