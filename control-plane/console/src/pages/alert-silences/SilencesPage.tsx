import { useState } from 'preact/hooks';
import type { AlertSilence } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { useAction } from '../../api/use-action.js';
import { useMarks } from '../../api/use-marks.js';
import { useSubmit } from '../../api/use-submit.js';
import { AlertingTabs } from '../../components/AlertingTabs.js';
import { Field } from '../../components/Field.js';
import { Listed } from '../../components/Listed.js';
import { lockedBy, ManagedBadge, ManagedNote } from '../../components/managed/Managed.js';
import { MonitorName, MonitorSelect } from '../../components/MonitorSelect.js';
import { TimeRange } from '../../components/TimeRange.js';
import { FormError } from '../../components/states.js';
import { fromLocalInput, toLocalInput } from '../../components/time.js';
import { formatTime, t } from '../../i18n/i18n.js';
import { useMoveFromList } from '../../components/MoveFromList.js';
import { teamBody, useTeamScope, withTeam } from '../../api/team-scope.js';

/**
 * Silences (/v1/alert-silences): pages of one monitor, or of all, held back between two times;
 * the list with each one's status, end now, delete, its owner and a move into or out of a team
 * (docs/api/teams.md "Moving a resource"), and a form for a new one
 * (docs/api/alerting.md "Silences"); one applied from a file shows it and is read-only here
 * (docs/api/as-code.md "Marks").
 */
export default function SilencesPage() {
  const team_id = useTeamScope();
  const silences = useApi<{ items: AlertSilence[] }>(withTeam('/v1/alert-silences', team_id));
  const action = useAction(silences.reload);
  const markOf = useMarks('alert_silence');
  const move = useMoveFromList<AlertSilence>('/v1/alert-silences', silences.reload);
  const [monitor_id, setMonitor] = useState('');
  const [reason, setReason] = useState('');
  const [starts, setStarts] = useState(() => toLocalInput(new Date()));
  const [ends, setEnds] = useState(() => toLocalInput(new Date(Date.now() + 3_600_000)));
  const { busy, error, submit } = useSubmit(async () => {
    await api('POST', '/v1/alert-silences', { monitor_id: monitor_id || null, reason, starts_at: fromLocalInput(starts), ends_at: fromLocalInput(ends), ...teamBody(team_id) });
    setReason('');
    silences.reload();
  });
  const path = (s: AlertSilence) => `/v1/alert-silences/${encodeURIComponent(s.id)}`;
  return (
    <section>
      <h1>{t('silences.title')}</h1>
      <AlertingTabs here="/alerts/silences" />
      <FormError id="silences-error" error={action.error} />
      <Listed loaded={silences} items={(d) => d.items} empty={t('silences.empty')}>
        {(d) => (
          <>
            <ManagedNote marks={d.items.map((s) => markOf(s.id))} />
            <table>
              <thead><tr>
                <th scope="col">{t('policies.monitor')}</th><th scope="col">{t('silences.reason')}</th><th scope="col">{t('alerting.starts_at')}</th>
                <th scope="col">{t('alerting.ends_at')}</th><th scope="col">{t('events.status')}</th><th scope="col"><span class="sr-only">{t('events.actions')}</span></th>
              </tr></thead>
              <tbody>{d.items.map((s) => (
                <tr key={s.id}>
                  <td>{s.monitor_id ? <MonitorName monitor_id={s.monitor_id} /> : t('silences.all_monitors')}</td>
                  <td>{s.reason} <ManagedBadge mark={markOf(s.id)} /></td><td>{formatTime(s.starts_at)}</td><td>{formatTime(s.ends_at)}</td>
                  <td><span class="badge">{t(`silences.status.${s.status}`)}</span></td>
                  <td class="actions">
                    {s.status === 'active' && <button type="button" {...lockedBy(markOf(s.id))} onClick={() => void action.call('PATCH', path(s), { ends_at: new Date().toISOString() })}>{t('silences.end_now')}</button>}
                    {move.button(s, s.reason || formatTime(s.starts_at), lockedBy(markOf(s.id)))}
                    <button type="button" class="danger" {...lockedBy(markOf(s.id))} onClick={() => void action.call('DELETE', path(s))}>{t('channels.delete')}</button>
                  </td>
                </tr>
              ))}</tbody>
            </table>
          </>
        )}
      </Listed>
      {move.panel}
      <h2>{t('silences.new')}</h2>
      <form onSubmit={submit} class="narrow">
        <MonitorSelect id="sil-monitor" label={t('policies.monitor')} value={monitor_id} onChange={setMonitor} anyLabel={t('silences.all_monitors')} />
        <Field id="sil-reason" label={t('silences.reason')}><input id="sil-reason" maxLength={500} value={reason} onInput={(e) => setReason((e.target as HTMLInputElement).value)} /></Field>
        <TimeRange id="sil" starts={starts} ends={ends} onStarts={setStarts} onEnds={setEnds} />
        <FormError id="silence-error" error={error} />
        <button type="submit" class="primary" disabled={busy}>{t('silences.create')}</button>
      </form>
    </section>
  );
}
