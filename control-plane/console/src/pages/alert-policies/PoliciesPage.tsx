import { useState } from 'preact/hooks';
import type { AlertChannel, AlertPolicy } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { useAction } from '../../api/use-action.js';
import { useMarks } from '../../api/use-marks.js';
import { AlertingTabs } from '../../components/AlertingTabs.js';
import { Listed } from '../../components/Listed.js';
import { lockedBy, ManagedBadge, ManagedNote } from '../../components/managed/Managed.js';
import { MonitorName } from '../../components/MonitorSelect.js';
import { FormError } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';
import { PolicyForm } from './PolicyForm.js';
import { PolicyMove } from './PolicyMove.js';
import { useMoveFromList } from '../../components/MoveFromList.js';
import { useTeamScope, withTeam } from '../../api/team-scope.js';

/**
 * Alert policies (/v1/alert-policies): which monitor pages which channels, after what delay, and
 * the escalation levels after it; enable, disable, delete, its owner and a move into or out of a
 * team (docs/api/teams.md "Moving a resource"), and a form for a new one
 * (docs/api/alerting.md "Policies"); one applied from a file shows it and is read-only here
 * (docs/api/as-code.md "Marks").
 */
export default function PoliciesPage() {
  const policies = useApi<{ items: AlertPolicy[] }>(withTeam('/v1/alert-policies', useTeamScope()));
  const channels = useApi<{ items: AlertChannel[] }>('/v1/alert-channels');
  const action = useAction(policies.reload);
  const markOf = useMarks('alert_policy');
  const [editing, setEditing] = useState<AlertPolicy | null>(null);
  const move = useMoveFromList<AlertPolicy>('/v1/alert-policies', policies.reload, (props) => <PolicyMove {...props} channels={channels.data?.items ?? []} />);
  const names = new Map(channels.data?.items.map((c) => [c.id, c.name]) ?? []);
  const channelNames = (ids: string[]) => ids.map((id) => names.get(id) ?? id).join(', ');
  const remove = (p: AlertPolicy) => action.run(async () => {
    if (!confirm(t('policies.delete_confirm', { name: p.name }))) return;
    await api('DELETE', `/v1/alert-policies/${encodeURIComponent(p.id)}`);
    policies.reload();
  });
  return (
    <section>
      <h1>{t('policies.title')}</h1>
      <AlertingTabs here="/alerts/policies" />
      <FormError id="policies-error" error={action.error} />
      <Listed loaded={policies} items={(d) => d.items} empty={t('policies.empty')}>
        {(d) => (
          <>
            <ManagedNote marks={d.items.map((p) => markOf(p.id))} />
            <table>
              <thead><tr>
                <th scope="col">{t('policies.name')}</th><th scope="col">{t('policies.monitor')}</th><th scope="col">{t('policies.channels')}</th>
                <th scope="col">{t('policies.delay_s')}</th><th scope="col">{t('policies.levels')}</th><th scope="col">{t('policies.enabled')}</th>
                <th scope="col"><span class="sr-only">{t('events.actions')}</span></th>
              </tr></thead>
              <tbody>{d.items.map((p) => (
                <tr key={p.id}>
                  <td>{p.name} <ManagedBadge mark={markOf(p.id)} /></td>
                  <td><MonitorName monitor_id={p.monitor_id} /></td>
                  <td>{channelNames(p.channel_ids)}</td>
                  <td>{p.delay_s}</td>
                  <td>{p.escalation_levels.length === 0 ? t('policies.levels_none_short') : (
                    <ol class="levels">{p.escalation_levels.map((l) => <li key={l.id}>{t('policies.level_summary', { s: l.after_seconds, channels: channelNames(l.channel_ids) })}</li>)}</ol>
                  )}</td>
                  <td>{p.enabled ? t('profile.on') : t('profile.off')}</td>
                  <td class="actions">
                    <button type="button" {...lockedBy(markOf(p.id))} aria-label={t('policies.edit_named', { name: p.name })} onClick={() => setEditing(p)}>{t('policies.edit')}</button>
                    {move.button(p, p.name, lockedBy(markOf(p.id)))}
                    <button type="button" {...lockedBy(markOf(p.id))} aria-label={t(p.enabled ? 'policies.disable_named' : 'policies.enable_named', { name: p.name })} onClick={() => void action.call('PATCH', `/v1/alert-policies/${encodeURIComponent(p.id)}`, { enabled: !p.enabled })}>{p.enabled ? t('policies.disable') : t('policies.enable')}</button>
                    <button type="button" class="danger" {...lockedBy(markOf(p.id))} aria-label={t('policies.delete_named', { name: p.name })} onClick={() => void remove(p)}>{t('channels.delete')}</button>
                  </td>
                </tr>
              ))}</tbody>
            </table>
          </>
        )}
      </Listed>
      {move.panel}
      {channels.data && (editing
        ? <PolicyForm key={editing.id} channels={channels.data.items} editing={editing} created={() => { setEditing(null); policies.reload(); }} cancel={() => setEditing(null)} />
        : <PolicyForm key="new" channels={channels.data.items} created={policies.reload} />)}
    </section>
  );
}
