import { useState } from 'preact/hooks';
import { RECURRENCES } from '../../api/vocabulary.js';
import { api } from '../../api/client.js';
import { useSubmit } from '../../api/use-submit.js';
import { Field } from '../../components/Field.js';
import { MonitorSelect } from '../../components/MonitorSelect.js';
import { TimeRange } from '../../components/TimeRange.js';
import { FormError } from '../../components/states.js';
import { fromLocalInput, toLocalInput } from '../../components/time.js';
import { t } from '../../i18n/i18n.js';
import { keptTeam, teamBody } from '../../api/team-scope.js';

/** Create a maintenance window (POST /v1/maintenance-windows) for one monitor or all, once or recurring, with an optional advance notice e-mail. */
export function MaintenanceForm({ created }: { created: () => void }) {
  const [title, setTitle] = useState('');
  const [monitor_id, setMonitor] = useState('');
  const [starts, setStarts] = useState(() => toLocalInput(new Date(Date.now() + 86_400_000)));
  const [ends, setEnds] = useState(() => toLocalInput(new Date(Date.now() + 86_400_000 + 3_600_000)));
  const [recurrence, setRecurrence] = useState<(typeof RECURRENCES)[number]>('none');
  const [notice, setNotice] = useState('0');
  const { busy, error, submit } = useSubmit(async () => {
    await api('POST', '/v1/maintenance-windows', {
      title: title || null, scope_type: monitor_id ? 'monitor' : 'all', scope_ids: monitor_id ? [monitor_id] : [],
      starts_at: fromLocalInput(starts), ends_at: fromLocalInput(ends), recurrence, advance_notice_minutes: Number(notice),
      ...teamBody(keptTeam()),
    });
    setTitle('');
    created();
  });
  return (
    <>
      <h2>{t('maintenance.new')}</h2>
      <form onSubmit={submit} class="narrow">
        <Field id="mw-title" label={t('maintenance.window_title')}><input id="mw-title" maxLength={200} value={title} onInput={(e) => setTitle((e.target as HTMLInputElement).value)} /></Field>
        <MonitorSelect id="mw-monitor" label={t('policies.monitor')} value={monitor_id} onChange={setMonitor} anyLabel={t('silences.all_monitors')} />
        <TimeRange id="mw" starts={starts} ends={ends} onStarts={setStarts} onEnds={setEnds} />
        <div class="inline">
          <Field id="mw-recurrence" label={t('maintenance.recurrence')}>
            <select id="mw-recurrence" value={recurrence} onChange={(e) => setRecurrence((e.target as HTMLSelectElement).value as typeof recurrence)}>
              {RECURRENCES.map((r) => <option key={r} value={r}>{t(`maintenance.recurrence.${r}`)}</option>)}
            </select>
          </Field>
          <Field id="mw-notice" label={t('maintenance.notice')}><input id="mw-notice" type="number" min={0} max={10080} value={notice} onInput={(e) => setNotice((e.target as HTMLInputElement).value)} /></Field>
        </div>
        <FormError id="mw-error" error={error} />
        <button type="submit" class="primary" disabled={busy}>{t('maintenance.create')}</button>
      </form>
    </>
  );
}
