import { useEffect, useState } from 'preact/hooks';
import type { OncallSchedule } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useSubmit } from '../../api/use-submit.js';
import { Field } from '../../components/Field.js';
import { Refusal } from '../../components/Refusal.js';
import { t } from '../../i18n/i18n.js';

/** A schedule's name and IANA time zone (PATCH /v1/oncall/schedules/{id}); rotations' dates and times are local to the zone. */
export function ScheduleSettings({ schedule, canWrite, saved }: { schedule: OncallSchedule; canWrite: boolean; saved: () => void }) {
  const [name, setName] = useState(schedule.name);
  const [time_zone, setTimeZone] = useState(schedule.time_zone);
  useEffect(() => { setName(schedule.name); setTimeZone(schedule.time_zone); }, [schedule]);
  const { busy, error, submit } = useSubmit(async () => {
    await api('PATCH', `/v1/oncall/schedules/${encodeURIComponent(schedule.id)}`, { name, time_zone });
    saved();
  });
  const why = canWrite ? undefined : 'schedule-why';
  return (
    <>
      <h2>{t('schedule.settings')}</h2>
      <form onSubmit={submit} class="narrow">
        <Field id="sch-name" label={t('oncall.name')}>
          <input id="sch-name" required maxLength={100} value={name} disabled={!canWrite} aria-describedby={why} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </Field>
        <Field id="sch-tz" label={t('oncall.time_zone')}>
          <input id="sch-tz" required maxLength={64} value={time_zone} disabled={!canWrite} aria-describedby={why} onInput={(e) => setTimeZone((e.target as HTMLInputElement).value)} />
        </Field>
        <Refusal id="schedule-settings-error" error={error} />
        <button type="submit" class="primary" disabled={busy || !canWrite} aria-describedby={why}>{t('schedule.save')}</button>
      </form>
    </>
  );
}
