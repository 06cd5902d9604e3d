import { useState } from 'preact/hooks';
import { t } from '../i18n/i18n.js';

/** One choice of an ordered picker: its value and what is shown. */
export interface Choice { value: string; label: string }

/**
 * An ordered selection from `choices` (an on-call rotation's participants in turn order, contact
 * channels in paging order): the chosen ones as a numbered list with move up, move down and
 * remove, and a labelled select with an add button for the others. Every button names its item,
 * so keyboard and screen-reader users can tell them apart. `max` caps the selection.
 */
export function OrderedPicker({ id, label, choices, value, onChange, max }: {
  id: string; label: string; choices: Choice[]; value: string[]; onChange: (next: string[]) => void; max: number;
}) {
  const rest = choices.filter((c) => !value.includes(c.value));
  const [adding, setAdding] = useState('');
  const pick = rest.some((c) => c.value === adding) ? adding : rest[0]?.value ?? '';
  const labelOf = (v: string) => choices.find((c) => c.value === v)?.label ?? v;
  const move = (i: number, by: number) => {
    const next = [...value];
    [next[i], next[i + by]] = [next[i + by]!, next[i]!];
    onChange(next);
  };
  return (
    <fieldset class="ordered">
      <legend>{label}</legend>
      {value.length === 0 ? <p class="hint">{t('picker.none')}</p> : (
        <ol>{value.map((v, i) => (
          <li key={v}>
            <span>{labelOf(v)}</span>
            <button type="button" disabled={i === 0} aria-label={t('picker.up', { name: labelOf(v) })} onClick={() => move(i, -1)}>↑</button>
            <button type="button" disabled={i === value.length - 1} aria-label={t('picker.down', { name: labelOf(v) })} onClick={() => move(i, 1)}>↓</button>
            <button type="button" aria-label={t('picker.remove', { name: labelOf(v) })} onClick={() => onChange(value.filter((x) => x !== v))}>{t('picker.remove_short')}</button>
          </li>
        ))}</ol>
      )}
      {rest.length > 0 && value.length < max && (
        <div class="inline">
          <div class="field">
            <label for={`${id}-add`}>{t('picker.choose', { what: label })}</label>
            <select id={`${id}-add`} value={pick} onChange={(e) => setAdding((e.target as HTMLSelectElement).value)}>
              {rest.map((c) => <option key={c.value} value={c.value}>{c.label}</option>)}
            </select>
          </div>
          <button type="button" onClick={() => pick && onChange([...value, pick])}>{t('picker.add')}</button>
        </div>
      )}
    </fieldset>
  );
}
