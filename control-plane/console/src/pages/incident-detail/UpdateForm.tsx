import { useState } from 'preact/hooks';
import type { IncidentStatus } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useSubmit } from '../../api/use-submit.js';
import { INCIDENT_STATUS_LIST } from '../../api/vocabulary.js';
import { Field } from '../../components/Field.js';
import { Refusal } from '../../components/Refusal.js';
import { t } from '../../i18n/i18n.js';

/** The status after `s` in the usual order (investigating → identified → monitoring → resolved). */
const nextOf = (s: IncidentStatus): IncidentStatus => INCIDENT_STATUS_LIST[Math.min(INCIDENT_STATUS_LIST.indexOf(s) + 1, INCIDENT_STATUS_LIST.length - 1)]!;

/** Post an update (POST /v1/incidents/{id}/updates): the new status (the next one preselected) and the message visitors read. */
export function UpdateForm({ path, current, posted }: { path: string; current: IncidentStatus; posted: () => void }) {
  const [status, setStatus] = useState<IncidentStatus>(() => nextOf(current));
  const [message, setMessage] = useState('');
  const { busy, error, submit } = useSubmit(async () => {
    await api('POST', `${path}/updates`, { status, message });
    setMessage('');
    posted();
  });
  return (
    <>
      <h2>{t('inc.post_update')}</h2>
      <form onSubmit={submit} class="narrow">
        <Field id="upd-status" label={t('inc.new_status')}>
          <select id="upd-status" value={status} onChange={(e) => setStatus((e.target as HTMLSelectElement).value as IncidentStatus)}>
            {INCIDENT_STATUS_LIST.map((s) => <option key={s} value={s}>{t(`inc.status.${s}`)}</option>)}
          </select>
        </Field>
        <Field id="upd-message" label={t('inc.message')}>
          <textarea id="upd-message" rows={3} required maxLength={10000} value={message} onInput={(e) => setMessage((e.target as HTMLTextAreaElement).value)} />
        </Field>
        <Refusal id="upd-error" error={error} />
        <button type="submit" class="primary" disabled={busy}>{status === 'resolved' ? t('inc.resolve') : t('inc.post')}</button>
      </form>
    </>
  );
}
