import type { MaintenanceWindow } from '@vantage/shared-protocol';

/** One occurrence of a maintenance window: its window and its start and end. */
export interface Occurrence { window: MaintenanceWindow; start: Date; end: Date }

const DAY_MS = 86_400_000;

/** The start of occurrence `n` of `first`: `recurrence` steps in local wall-clock days or months (docs/api/alerting.md "Maintenance windows"; the engine uses the owner's time zone, the calendar the browser's). */
function step(first: Date, recurrence: MaintenanceWindow['recurrence'], n: number): Date {
  const d = new Date(first);
  if (recurrence === 'daily') d.setDate(d.getDate() + n);
  else if (recurrence === 'weekly') d.setDate(d.getDate() + 7 * n);
  else if (recurrence === 'monthly') {
    // The 31st runs on the last day of shorter months, as the engine does.
    const day = first.getDate();
    d.setDate(1);
    d.setMonth(first.getMonth() + n);
    d.setDate(Math.min(day, new Date(d.getFullYear(), d.getMonth() + 1, 0).getDate()));
  }
  return d;
}

/**
 * The occurrences of `windows` that overlap [from, to), ordered by start: a window without
 * recurrence once, a recurring one at each step until `recurrence_until` (inclusive bound on a start).
 */
export function occurrencesBetween(windows: MaintenanceWindow[], from: Date, to: Date): Occurrence[] {
  const out: Occurrence[] = [];
  for (const w of windows) {
    const first = new Date(w.starts_at);
    const length = Date.parse(w.ends_at) - first.getTime();
    const until = w.recurrence_until ? Date.parse(w.recurrence_until) : Infinity;
    for (let n = 0; n < 1000; n++) {
      const start = step(first, w.recurrence, n);
      if (start.getTime() >= to.getTime() || start.getTime() > until) break;
      if (start.getTime() + length > from.getTime()) out.push({ window: w, start, end: new Date(start.getTime() + length) });
      if (w.recurrence === 'none') break;
    }
  }
  return out.sort((a, b) => a.start.getTime() - b.start.getTime());
}

/** Midnight (local) of the Monday of the week holding `at`, and the `weeks` × 7 days from it. */
export function calendarDays(at: Date, weeks: number): Date[] {
  const monday = new Date(at.getFullYear(), at.getMonth(), at.getDate() - ((at.getDay() + 6) % 7));
  return Array.from({ length: weeks * 7 }, (_, i) => new Date(monday.getFullYear(), monday.getMonth(), monday.getDate() + i));
}

/** Whether an occurrence overlaps the local day starting at `day`. */
export function onDay(o: Occurrence, day: Date): boolean {
  return o.start.getTime() < day.getTime() + DAY_MS && o.end.getTime() > day.getTime();
}
