import { useState } from 'preact/hooks';
import type { AlertChannel, AlertChannelTestResult } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { useAction } from '../../api/use-action.js';
import { useMarks } from '../../api/use-marks.js';
import { AlertingTabs } from '../../components/AlertingTabs.js';
import { Listed } from '../../components/Listed.js';
import { lockedBy, ManagedBadge, ManagedNote } from '../../components/managed/Managed.js';
import { FormError } from '../../components/states.js';
import { formatTime, t } from '../../i18n/i18n.js';
import { ChannelForm } from './ChannelForm.js';
import { MoveTeam } from '../../components/MoveTeam.js';
import { Recipients } from './Recipients.js';
import { useTeamScope, withTeam } from '../../api/team-scope.js';

/**
 * Alert channels (/v1/alert-channels): the list with each channel's type and whether a send
 * reached it, a test send with its outcome, edit (PATCH) and, beside the edit form, its owner
 * and a move into or out of a team (docs/api/teams.md "Moving a resource"), delete, an e-mail channel's recipients
 * with an opt-in resend, and the form for a new one (docs/api/alerting.md "Channels"); one applied from a file shows it and cannot be edited or deleted here
 * (docs/api/as-code.md "Marks").
 */
export default function ChannelsPage() {
  const channels = useApi<{ items: AlertChannel[] }>(withTeam('/v1/alert-channels', useTeamScope()));
  const action = useAction();
  const markOf = useMarks('alert_channel');
  const [tested, setTested] = useState<{ name: string; result: AlertChannelTestResult } | null>(null);
  const [editing, setEditing] = useState<AlertChannel | null>(null);
  const test = (c: AlertChannel) => action.run(async () => {
    setTested(null);
    setTested({ name: c.name, result: await api<AlertChannelTestResult>('POST', `/v1/alert-channels/${encodeURIComponent(c.id)}/test`) });
    channels.reload();
  });
  const remove = (c: AlertChannel) => action.run(async () => {
    if (!confirm(t('channels.delete_confirm', { name: c.name }))) return;
    await api('DELETE', `/v1/alert-channels/${encodeURIComponent(c.id)}`);
    channels.reload();
  });
  return (
    <section>
      <h1>{t('channels.title')}</h1>
      <AlertingTabs here="/alerts/channels" />
      <FormError id="channels-error" error={action.error} />
      {tested && (
        <p role="status" class={tested.result.status === 'failed' ? 'form-error' : undefined}>
          {t(`channels.test.${tested.result.status}`, { name: tested.name })}
          {tested.result.status_code !== null && ` (HTTP ${tested.result.status_code})`}
          {tested.result.error && `: ${tested.result.error}`}
        </p>
      )}
      <Listed loaded={channels} items={(d) => d.items} empty={t('channels.empty')}>
        {(d) => (
          <>
            <ManagedNote marks={d.items.map((c) => markOf(c.id))} />
            <table>
              <thead><tr><th scope="col">{t('channels.name')}</th><th scope="col">{t('channels.type')}</th><th scope="col">{t('channels.verified')}</th><th scope="col">{t('keys.created')}</th><th scope="col"><span class="sr-only">{t('events.actions')}</span></th></tr></thead>
              <tbody>{d.items.map((c) => (
                <tr key={c.id}>
                  <td>{c.name} <ManagedBadge mark={markOf(c.id)} /></td>
                  <td>{t(`channels.type.${c.type}`)}</td>
                  <td>{c.verified ? t('channels.verified_yes') : t('channels.verified_no')}</td>
                  <td>{formatTime(c.created_at)}</td>
                  <td class="actions">
                    <button type="button" aria-label={t('channels.test_named', { name: c.name })} onClick={() => void test(c)}>{t('channels.test')}</button>
                    <button type="button" {...lockedBy(markOf(c.id))} aria-label={t('channels.edit_named', { name: c.name })} onClick={() => setEditing(c)}>{t('channels.edit')}</button>
                    <button type="button" class="danger" {...lockedBy(markOf(c.id))} aria-label={t('channels.delete_named', { name: c.name })} onClick={() => void remove(c)}>{t('channels.delete')}</button>
                  </td>
                </tr>
              ))}</tbody>
            </table>
            {d.items.some((c) => c.type === 'email') && <p class="hint">{t('recipients.intro')}</p>}
            {d.items.filter((c) => c.type === 'email' && c.recipients?.length).map((c) => <Recipients key={c.id} channel={c} changed={channels.reload} />)}
          </>
        )}
      </Listed>
      {editing
        ? <ChannelForm key={editing.id} editing={editing} created={() => { setEditing(null); channels.reload(); }} cancel={() => setEditing(null)} />
        : <ChannelForm key="new" created={channels.reload} />}
      {editing && <MoveTeam resource={editing} path={`/v1/alert-channels/${encodeURIComponent(editing.id)}`} moved={() => void action.run(async () => {
        setEditing(await api<AlertChannel>('GET', `/v1/alert-channels/${encodeURIComponent(editing.id)}`));
        channels.reload();
      })} />}
    </section>
  );
}
