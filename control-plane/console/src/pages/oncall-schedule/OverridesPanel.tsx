import { useState } from 'preact/hooks';
import type { OncallOverride, OncallSchedule } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useAction } from '../../api/use-action.js';
import type { Loaded } from '../../api/use-api.js';
import { useSubmit } from '../../api/use-submit.js';
import { Field } from '../../components/Field.js';
import { Listed } from '../../components/Listed.js';
import type { Choice } from '../../components/OrderedPicker.js';
import { Refusal } from '../../components/Refusal.js';
import { FormError } from '../../components/states.js';
import { roleGate } from '../../components/team-roles.js';
import { fromLocalInput, toLocalInput } from '../../components/time.js';
import { formatTime, t } from '../../i18n/i18n.js';

/**
 * A schedule's overrides not yet over (GET …/overrides): who, whose shifts it takes (or all),
 * from, until; delete one; add one (POST …/overrides: a team member from a start to an end at most
 * 90 days later, optionally only during one participant's shifts; docs/api/teams.md "Overrides").
 */
export function OverridesPanel({ schedule, overrides, members, nameOf, canWrite, changed }: {
  schedule: OncallSchedule; overrides: Loaded<{ items: OncallOverride[] }>; members: Choice[]; nameOf: (id: string) => string; canWrite: boolean; changed: () => void;
}) {
  const path = `/v1/oncall/schedules/${encodeURIComponent(schedule.id)}/overrides`;
  const action = useAction(changed);
  const participants = [...new Set(schedule.rotations.flatMap((r) => r.participants))];
  const [user_id, setUser] = useState('');
  const [replaces, setReplaces] = useState('');
  const [starts, setStarts] = useState(() => toLocalInput(new Date()));
  const [ends, setEnds] = useState(() => toLocalInput(new Date(Date.now() + 86_400_000)));
  const who = user_id || members[0]?.value || '';
  const { busy, error, submit } = useSubmit(async () => {
    await api('POST', path, { user_id: who, starts_at: fromLocalInput(starts), ends_at: fromLocalInput(ends), replaces_user_id: replaces || null });
    changed();
  });
  const str = (e: Event) => (e.target as HTMLInputElement).value;
  return (
    <>
      <h2>{t('override.title')}</h2>
      <FormError id="overrides-error" error={action.error} />
      <Listed loaded={overrides} items={(d) => d.items} empty={t('override.empty')}>
        {(d) => (
          <table>
            <thead><tr>
              <th scope="col">{t('override.who')}</th><th scope="col">{t('override.replaces')}</th><th scope="col">{t('oncall.from')}</th>
              <th scope="col">{t('oncall.until_col')}</th><th scope="col"><span class="sr-only">{t('events.actions')}</span></th>
            </tr></thead>
            <tbody>{d.items.map((o) => (
              <tr key={o.id}>
                <td>{nameOf(o.user_id)}</td><td>{o.replaces_user_id ? nameOf(o.replaces_user_id) : t('override.anyone')}</td>
                <td>{formatTime(o.starts_at)}</td><td>{formatTime(o.ends_at)}</td>
                <td><button type="button" class="danger" {...roleGate(canWrite, 'schedule-why')} aria-label={t('override.delete_named', { name: nameOf(o.user_id) })}
                  onClick={() => void action.call('DELETE', `${path}/${encodeURIComponent(o.id)}`)}>{t('override.delete')}</button></td>
              </tr>
            ))}</tbody>
          </table>
        )}
      </Listed>
      <h3>{t('override.new')}</h3>
      <form onSubmit={submit} class="narrow">
        <div class="inline">
          <Field id="ovr-user" label={t('override.who')}>
            <select id="ovr-user" value={who} onChange={(e) => setUser(str(e))}>
              {members.map((m) => <option key={m.value} value={m.value}>{m.label}</option>)}
            </select>
          </Field>
          <Field id="ovr-replaces" label={t('override.replaces')}>
            <select id="ovr-replaces" value={replaces} onChange={(e) => setReplaces(str(e))}>
              <option value="">{t('override.anyone')}</option>
              {participants.map((p) => <option key={p} value={p}>{nameOf(p)}</option>)}
            </select>
          </Field>
        </div>
        <div class="inline">
          <Field id="ovr-starts" label={t('oncall.from')}><input id="ovr-starts" type="datetime-local" required value={starts} onInput={(e) => setStarts(str(e))} /></Field>
          <Field id="ovr-ends" label={t('oncall.until_col')}><input id="ovr-ends" type="datetime-local" required value={ends} onInput={(e) => setEnds(str(e))} /></Field>
        </div>
        <Refusal id="override-error" error={error} />
        <button type="submit" class="primary" {...roleGate(canWrite, 'schedule-why')} disabled={busy || !canWrite || !who}>{t('override.add')}</button>
      </form>
    </>
  );
}
