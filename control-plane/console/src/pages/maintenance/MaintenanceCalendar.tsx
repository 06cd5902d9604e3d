import type { MaintenanceWindow } from '@vantage/shared-protocol';
import { LANG_TAGS, locale, t } from '../../i18n/i18n.js';
import { calendarDays, occurrencesBetween, onDay } from './occurrences.js';

const WEEKS = 4;

/** The next four weeks (from this week's Monday) as a calendar: each day lists the maintenance occurring on it, in the browser's time zone. */
export function MaintenanceCalendar({ windows }: { windows: MaintenanceWindow[] }) {
  const days = calendarDays(new Date(), WEEKS);
  const occurrences = occurrencesBetween(windows, days[0]!, new Date(days[days.length - 1]!.getTime() + 86_400_000));
  const tag = LANG_TAGS[locale()];
  const weekday = new Intl.DateTimeFormat(tag, { weekday: 'short' });
  const date = new Intl.DateTimeFormat(tag, { month: 'short', day: 'numeric' });
  const time = new Intl.DateTimeFormat(tag, { hour: '2-digit', minute: '2-digit' });
  const today = new Date().toDateString();
  return (
    <table class="calendar">
      <caption>{t('maintenance.calendar_caption')}</caption>
      <thead><tr>{days.slice(0, 7).map((d) => <th scope="col" key={d.getDay()}>{weekday.format(d)}</th>)}</tr></thead>
      <tbody>
        {Array.from({ length: WEEKS }, (_, w) => (
          <tr key={w}>{days.slice(w * 7, w * 7 + 7).map((d) => (
            <td key={d.getTime()} class={d.toDateString() === today ? 'today' : undefined} aria-current={d.toDateString() === today ? 'date' : undefined}>
              <span class="day">{date.format(d)}</span>
              <ul>{occurrences.filter((o) => onDay(o, d)).map((o) => (
                <li key={`${o.window.id}-${o.start.getTime()}`}>{time.format(o.start)} {o.window.title ?? t('maintenance.untitled')}</li>
              ))}</ul>
            </td>
          ))}</tr>
        ))}
      </tbody>
    </table>
  );
}
