import { Field } from './Field.js';
import { t } from '../i18n/i18n.js';

/** The start and end of a silence or maintenance window, as `datetime-local` values in the browser's time zone (`id` prefixes the inputs). */
export function TimeRange({ id, starts, ends, onStarts, onEnds }: { id: string; starts: string; ends: string; onStarts: (v: string) => void; onEnds: (v: string) => void }) {
  return (
    <div class="inline">
      <Field id={`${id}-starts`} label={t('alerting.starts_at')}><input id={`${id}-starts`} type="datetime-local" required value={starts} onInput={(e) => onStarts((e.target as HTMLInputElement).value)} /></Field>
      <Field id={`${id}-ends`} label={t('alerting.ends_at')}><input id={`${id}-ends`} type="datetime-local" required value={ends} onInput={(e) => onEnds((e.target as HTMLInputElement).value)} /></Field>
    </div>
  );
}
