import type { AlertChannel } from '@vantage/shared-protocol';
import { Field } from '../../components/Field.js';
import { t } from '../../i18n/i18n.js';

/** An escalation level as the form holds it: wait after the previous step (seconds) and the channel it pages. */
export interface LevelRow { after_seconds: string; channel_id: string }

/**
 * The escalation levels of the policy form: one row per level (at most 5, docs/api/alerting.md
 * "Policies"), each a wait in seconds after the previous step and a channel, added and removed.
 */
export function LevelRows({ rows, channels, onChange }: { rows: LevelRow[]; channels: AlertChannel[]; onChange: (rows: LevelRow[]) => void }) {
  const set = (i: number, patch: Partial<LevelRow>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <fieldset>
      <legend>{t('policies.levels')}</legend>
      {rows.length === 0 && <p class="hint">{t('policies.levels_none')}</p>}
      {rows.map((r, i) => (
        <div class="inline level" key={i}>
          <Field id={`lvl-${i}-after`} label={t('policies.level_after', { n: i + 1 })}>
            <input id={`lvl-${i}-after`} type="number" min={1} required value={r.after_seconds} onInput={(e) => set(i, { after_seconds: (e.target as HTMLInputElement).value })} />
          </Field>
          <Field id={`lvl-${i}-channel`} label={t('policies.level_channel', { n: i + 1 })}>
            <select id={`lvl-${i}-channel`} required value={r.channel_id} onChange={(e) => set(i, { channel_id: (e.target as HTMLSelectElement).value })}>
              <option value="" disabled>{t('policies.pick_channel')}</option>
              {channels.map((c) => <option key={c.id} value={c.id}>{c.name}</option>)}
            </select>
          </Field>
          <button type="button" onClick={() => onChange(rows.filter((_, j) => j !== i))}>{t('policies.level_remove', { n: i + 1 })}</button>
        </div>
      ))}
      {rows.length < 5 && <button type="button" onClick={() => onChange([...rows, { after_seconds: String(300 * (rows.length + 1)), channel_id: '' }])}>{t('policies.level_add')}</button>}
    </fieldset>
  );
}

/** The API's `escalation_levels[]` from the rows: level_index 1…n in order. */
export function levelsBody(rows: LevelRow[]): Array<{ level_index: number; after_seconds: number; channel_ids: string[] }> {
  return rows.map((r, i) => ({ level_index: i + 1, after_seconds: Number(r.after_seconds), channel_ids: [r.channel_id] }));
}
