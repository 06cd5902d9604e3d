import { useState } from 'preact/hooks';
import type { OncallRotation, OncallSchedule } from '@vantage/shared-protocol';
import { ONCALL_BOUNDS } from '../../api/vocabulary.js';
import { api } from '../../api/client.js';
import { useAction } from '../../api/use-action.js';
import type { Choice } from '../../components/OrderedPicker.js';
import { FormError } from '../../components/states.js';
import { roleGate } from '../../components/team-roles.js';
import { t } from '../../i18n/i18n.js';
import { RotationForm } from './RotationForm.js';

/**
 * A schedule's rotations: participants in turn order, first shift, shift length; add, edit and
 * remove one, each saved as the whole list (PATCH /v1/oncall/schedules/{id} with `rotations`). When
 * several have started, the one that started last decides (docs/api/teams.md "Rotations").
 */
export function RotationsPanel({ schedule, members, nameOf, canWrite, saved }: {
  schedule: OncallSchedule; members: Choice[]; nameOf: (id: string) => string; canWrite: boolean; saved: () => void;
}) {
  const [editing, setEditing] = useState<number | 'new' | null>(null);
  const action = useAction();
  const put = async (rotations: OncallRotation[]) => {
    await api('PATCH', `/v1/oncall/schedules/${encodeURIComponent(schedule.id)}`, { rotations });
    setEditing(null);
    saved();
  };
  const rotations = schedule.rotations;
  return (
    <>
      <h2>{t('rotation.title')}</h2>
      <p class="hint">{t('rotation.rule')}</p>
      <FormError id="rotations-error" error={action.error} />
      {rotations.length === 0 ? <p class="hint">{t('rotation.empty')}</p> : (
        <table>
          <thead><tr>
            <th scope="col">#</th><th scope="col">{t('rotation.participants')}</th><th scope="col">{t('rotation.starts_on')}</th>
            <th scope="col">{t('rotation.handoff_time')}</th><th scope="col">{t('rotation.shift')}</th><th scope="col"><span class="sr-only">{t('events.actions')}</span></th>
          </tr></thead>
          <tbody>{rotations.map((r, i) => (
            <tr key={i}>
              <td>{i + 1}</td><td>{r.participants.map(nameOf).join(' → ')}</td><td>{r.starts_on}</td><td>{r.handoff_time}</td>
              <td>{r.shift_length} {t(`rotation.unit.${r.shift_unit}`)}</td>
              <td class="actions">
                <button type="button" {...roleGate(canWrite, 'schedule-why')} aria-label={t('rotation.edit_named', { n: i + 1 })} onClick={() => setEditing(i)}>{t('rotation.edit_short')}</button>
                <button type="button" class="danger" {...roleGate(canWrite, 'schedule-why')} aria-label={t('rotation.remove_named', { n: i + 1 })}
                  onClick={() => void action.run(() => put(rotations.filter((_, j) => j !== i)))}>{t('rotation.remove')}</button>
              </td>
            </tr>
          ))}</tbody>
        </table>
      )}
      {editing === null ? (
        <button type="button" {...roleGate(canWrite && rotations.length < ONCALL_BOUNDS.rotations_max, 'schedule-why')} onClick={() => setEditing('new')}>{t('rotation.add')}</button>
      ) : (
        <RotationForm key={String(editing)} initial={editing === 'new' ? null : rotations[editing]!} members={members} time_zone={schedule.time_zone}
          cancel={() => setEditing(null)}
          save={(r) => put(editing === 'new' ? [...rotations, r] : rotations.map((x, j) => (j === editing ? r : x)))} />
      )}
    </>
  );
}
