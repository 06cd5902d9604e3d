import type { AlertChannel } from '@vantage/shared-protocol';
import { Field } from '../../components/Field.js';
import { t } from '../../i18n/i18n.js';

/** An escalation level as the form holds it: wait after the previous step (seconds) and the channel it pages. */
export interface LevelRow { after_seconds: string; channel_id: string }

/**
 * The escalation levels of the policy form: one row per level (at most 5, docs/api/alerting.md
 * "Policies"), each a wait in seconds after the previous step and a channel, added and removed.
 * `idPrefix` keeps the field ids apart where a page shows two of them.
 */
export function LevelRows({ rows, channels, onChange, idPrefix = 'lvl' }: { rows: LevelRow[]; channels: AlertChannel[]; onChange: (rows: LevelRow[]) => void; idPrefix?: string }) {
  const set = (i: number, patch: Partial<LevelRow>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <fieldset>
      <legend>{t('policies.levels')}</legend>
      {rows.length === 0 && <p class="hint">{t('policies.levels_none')}</p>}
      {rows.map((r, i) => (
        <div class="inline level" key={i}>
          <Field id={`${idPrefix}-${i}-after`} label={t('policies.level_after', { n: i + 1 })}>
            <input id={`${idPrefix}-${i}-after`} type="number" min={1} required value={r.after_seconds} onInput={(e) => set(i, { after_seconds: (e.target as HTMLInputElement).value })} />
          </Field>
          <Field id={`${idPrefix}-${i}-channel`} label={t('policies.level_channel', { n: i + 1 })}>
            <select id={`${idPrefix}-${i}-channel`} required value={r.channel_id} onChange={(e) => set(i, { channel_id: (e.target as HTMLSelectElement).value })}>
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

/** The rows of a policy's saved levels (the first channel of each, as the form holds them). */
export function levelRowsOf(levels: Array<{ after_seconds: number; channel_ids: string[] }>): LevelRow[] {
  return levels.map((l) => ({ after_seconds: String(l.after_seconds), channel_id: l.channel_ids[0] ?? '' }));
}

/** The channels of a policy's first notification as checkboxes in a fieldset (`picked`: the ids ticked). */
export function ChannelChecks({ channels, picked, onChange, legend }: { channels: AlertChannel[]; picked: string[]; onChange: (ids: string[]) => void; legend: string }) {
  const toggle = (id: string, on: boolean) => onChange(on ? [...picked, id] : picked.filter((p) => p !== id));
  return (
    <fieldset>
      <legend>{legend}</legend>
      {channels.length === 0 && <p class="hint">{t('policies.no_channels')}</p>}
      {channels.map((c) => (
        <label class="check" key={c.id}><input type="checkbox" checked={picked.includes(c.id)} onChange={(e) => toggle(c.id, (e.target as HTMLInputElement).checked)} />{c.name}</label>
      ))}
    </fieldset>
  );
}
