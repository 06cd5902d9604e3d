import type { ComplianceFrequency } from '@vantage/shared-protocol';

/**
 * Report periods (docs/api/compliance.md "Reports"), all UTC: `monthly` calendar months, `weekly`
 * ISO weeks (Monday 00:00 to Monday 00:00), `custom` runs of `custom_interval_days` days from the
 * subscription's start.
 */

const DAY_MS = 86_400_000;

/** The end of the period containing `at` (its exclusive end): when its report is due. */
export function periodEndAfter(frequency: ComplianceFrequency, at: Date, anchor: Date, custom_interval_days: number | null): Date {
  if (frequency === 'monthly') return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
  if (frequency === 'weekly') {
    const day = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
    const since_monday = (new Date(day).getUTCDay() + 6) % 7;
    return new Date(day + (7 - since_monday) * DAY_MS);
  }
  const len = (custom_interval_days ?? 30) * DAY_MS;
  const n = Math.floor((at.getTime() - anchor.getTime()) / len) + 1;
  return new Date(anchor.getTime() + n * len);
}

/** The period ending at `end`: its start and its labels (year; month for monthly; ISO week for weekly). */
export function periodEndingAt(frequency: ComplianceFrequency, end: Date, custom_interval_days: number | null): { start: Date; year: number; month: number | null; week: number | null } {
  if (frequency === 'monthly') {
    const start = new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth() - 1, 1));
    return { start, year: start.getUTCFullYear(), month: start.getUTCMonth() + 1, week: null };
  }
  if (frequency === 'weekly') {
    const start = new Date(end.getTime() - 7 * DAY_MS);
    const { year, week } = isoWeek(start);
    return { start, year, month: null, week };
  }
  const start = new Date(end.getTime() - (custom_interval_days ?? 30) * DAY_MS);
  return { start, year: start.getUTCFullYear(), month: null, week: null };
}

/** ISO 8601 week number and week-year of a UTC date. */
export function isoWeek(d: Date): { year: number; week: number } {
  const day = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  const dow = (day.getUTCDay() + 6) % 7;
  day.setUTCDate(day.getUTCDate() - dow + 3); // the Thursday of this week decides the year
  const year = day.getUTCFullYear();
  const first_thursday = new Date(Date.UTC(year, 0, 4));
  const week = 1 + Math.round((day.getTime() - first_thursday.getTime()) / (7 * DAY_MS) - ((first_thursday.getUTCDay() + 6) % 7 - 3) / 7);
  return { year, week };
}

/**
 * The same instant one calendar month after `d` (UTC): the end of a month of a compliance
 * subscription. A day the next month does not have becomes its last day (Jan 31 → Feb 28/29).
 */
export function monthAfter(d: Date): Date {
  const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 2, 0)).getUTCDate();
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, Math.min(d.getUTCDate(), last), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()));
}
