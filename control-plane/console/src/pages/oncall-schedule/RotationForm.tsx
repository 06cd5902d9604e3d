import { useState } from 'preact/hooks';
import type { OncallRotation } from '@vantage/shared-protocol';
import { ONCALL_BOUNDS, SHIFT_UNITS } from '../../api/vocabulary.js';
import { useSubmit } from '../../api/use-submit.js';
import { Field } from '../../components/Field.js';
import { OrderedPicker, type Choice } from '../../components/OrderedPicker.js';
import { Refusal } from '../../components/Refusal.js';
import { t } from '../../i18n/i18n.js';

const today = () => new Date().toISOString().slice(0, 10);

/**
 * One rotation's form (docs/api/teams.md "Schedule fields"): the participants in turn order (team
 * members), the first shift's local date and handoff time in the schedule's time zone, and the
 * shift length and unit. `save` sends the schedule's rotations whole (PATCH replaces them all).
 */
export function RotationForm({ initial, members, time_zone, save, cancel }: {
  initial: OncallRotation | null; members: Choice[]; time_zone: string; save: (r: OncallRotation) => Promise<void>; cancel: () => void;
}) {
  const [participants, setParticipants] = useState(initial?.participants ?? []);
  const [starts_on, setStartsOn] = useState(initial?.starts_on ?? today());
  const [handoff_time, setHandoff] = useState(initial?.handoff_time ?? '09:00');
  const [shift_length, setLength] = useState(String(initial?.shift_length ?? 1));
  const [shift_unit, setUnit] = useState<OncallRotation['shift_unit']>(initial?.shift_unit ?? 'weeks');
  const { busy, error, submit } = useSubmit(() => save({ participants, starts_on, handoff_time, shift_length: Number(shift_length), shift_unit }));
  const str = (e: Event) => (e.target as HTMLInputElement).value;
  return (
    <form onSubmit={submit} class="narrow rotation-form">
      <h3>{initial ? t('rotation.edit') : t('rotation.new')}</h3>
      <OrderedPicker id="rot-participants" label={t('rotation.participants')} choices={members} value={participants} onChange={setParticipants} max={ONCALL_BOUNDS.participants_max} />
      <div class="inline">
        <Field id="rot-starts" label={t('rotation.starts_on')}><input id="rot-starts" type="date" required value={starts_on} onInput={(e) => setStartsOn(str(e))} /></Field>
        <Field id="rot-handoff" label={t('rotation.handoff_time')}><input id="rot-handoff" type="time" required value={handoff_time} onInput={(e) => setHandoff(str(e))} /></Field>
      </div>
      <p class="hint">{t('rotation.local_to', { tz: time_zone })}</p>
      <div class="inline">
        <Field id="rot-length" label={t('rotation.shift_length')}>
          <input id="rot-length" type="number" required min={1} max={ONCALL_BOUNDS.shift_length_max} value={shift_length} onInput={(e) => setLength(str(e))} />
        </Field>
        <Field id="rot-unit" label={t('rotation.shift_unit')}>
          <select id="rot-unit" value={shift_unit} onChange={(e) => setUnit(str(e) as OncallRotation['shift_unit'])}>
            {SHIFT_UNITS.map((u) => <option key={u} value={u}>{t(`rotation.unit.${u}`)}</option>)}
          </select>
        </Field>
      </div>
      <Refusal id="rotation-error" error={error} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy || participants.length === 0}>{t('rotation.save')}</button>
        <button type="button" onClick={cancel}>{t('rotation.cancel')}</button>
      </div>
    </form>
  );
}
