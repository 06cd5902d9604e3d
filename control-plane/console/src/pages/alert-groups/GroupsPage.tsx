import { useState } from 'preact/hooks';
import type { AlertGroup } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { useAction } from '../../api/use-action.js';
import { useSubmit } from '../../api/use-submit.js';
import { GROUP_BY } from '../../api/vocabulary.js';
import { AlertingTabs } from '../../components/AlertingTabs.js';
import { Field } from '../../components/Field.js';
import { Listed } from '../../components/Listed.js';
import { FormError } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';
import { useMoveFromList } from '../../components/MoveFromList.js';
import { teamBody, useTeamScope, withTeam } from '../../api/team-scope.js';

/**
 * Alert groups (/v1/alert-groups): alerts of monitors matched by name prefix, tag or type gathered
 * for `wait_seconds` into one message per channel; the list, delete, its owner and a move into or
 * out of a team (docs/api/teams.md "Moving a resource"), and a form for a new one
 * (docs/api/alerting.md "Alert groups").
 */
export default function GroupsPage() {
  const team_id = useTeamScope();
  const groups = useApi<{ items: AlertGroup[] }>(withTeam('/v1/alert-groups', team_id));
  const action = useAction(groups.reload);
  const move = useMoveFromList<AlertGroup>('/v1/alert-groups', groups.reload);
  const [name, setName] = useState('');
  const [group_by, setGroupBy] = useState<(typeof GROUP_BY)[number]>('tag');
  const [group_value, setValue] = useState('');
  const [wait_seconds, setWait] = useState('60');
  const { busy, error, submit } = useSubmit(async () => {
    await api('POST', '/v1/alert-groups', { name, group_by, group_value, wait_seconds: Number(wait_seconds), ...teamBody(team_id) });
    setName(''); setValue('');
    groups.reload();
  });
  return (
    <section>
      <h1>{t('groups.title')}</h1>
      <AlertingTabs here="/alerts/groups" />
      <FormError id="groups-error" error={action.error} />
      <Listed loaded={groups} items={(d) => d.items} empty={t('groups.empty')}>
        {(d) => (
          <table>
            <thead><tr><th scope="col">{t('groups.name')}</th><th scope="col">{t('groups.group_by')}</th><th scope="col">{t('groups.value')}</th><th scope="col">{t('groups.wait_s')}</th><th scope="col"><span class="sr-only">{t('events.actions')}</span></th></tr></thead>
            <tbody>{d.items.map((g) => (
              <tr key={g.id}>
                <td>{g.name}</td><td>{t(`groups.by.${g.group_by}`)}</td><td><code>{g.group_value}</code></td><td>{g.wait_seconds}</td>
                <td class="actions">
                  {move.button(g, g.name)}
                  <button type="button" class="danger" aria-label={t('groups.delete_named', { name: g.name })} onClick={() => void action.call('DELETE', `/v1/alert-groups/${encodeURIComponent(g.id)}`)}>{t('channels.delete')}</button>
                </td>
              </tr>
            ))}</tbody>
          </table>
        )}
      </Listed>
      {move.panel}
      <h2>{t('groups.new')}</h2>
      <form onSubmit={submit} class="narrow">
        <Field id="grp-name" label={t('groups.name')}><input id="grp-name" required maxLength={200} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} /></Field>
        <div class="inline">
          <Field id="grp-by" label={t('groups.group_by')}>
            <select id="grp-by" value={group_by} onChange={(e) => setGroupBy((e.target as HTMLSelectElement).value as typeof group_by)}>
              {GROUP_BY.map((b) => <option key={b} value={b}>{t(`groups.by.${b}`)}</option>)}
            </select>
          </Field>
          <Field id="grp-value" label={t('groups.value')}><input id="grp-value" required maxLength={200} value={group_value} onInput={(e) => setValue((e.target as HTMLInputElement).value)} /></Field>
          <Field id="grp-wait" label={t('groups.wait_s')}><input id="grp-wait" type="number" min={0} max={3600} value={wait_seconds} onInput={(e) => setWait((e.target as HTMLInputElement).value)} /></Field>
        </div>
        <FormError id="group-error" error={error} />
        <button type="submit" class="primary" disabled={busy}>{t('groups.create')}</button>
      </form>
    </section>
  );
}
