import { useState } from 'preact/hooks';
import type { Dashboard } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { useMarks } from '../../api/use-marks.js';
import { useSubmit } from '../../api/use-submit.js';
import { TEMPLATES } from '../../api/vocabulary.js';
import { Field } from '../../components/Field.js';
import { Link } from '../../components/Link.js';
import { Listed } from '../../components/Listed.js';
import { ManagedBadge } from '../../components/managed/Managed.js';
import { Refusal } from '../../components/Refusal.js';
import { formatTime, t } from '../../i18n/i18n.js';
import { navigate } from '../../router.js';
import { teamBody, useTeamScope, withTeam } from '../../api/team-scope.js';

const str = (e: Event) => (e.target as HTMLInputElement).value;

/**
 * Dashboards (GET /v1/dashboards): name, widgets, shared or not, last change, the file of one
 * applied from a file (docs/api/as-code.md "Marks"); each opens its page.
 * Below, a new one (POST /v1/dashboards), blank or from a template filled with the user's own
 * monitors and nodes (docs/api/dashboards.md "Templates").
 */
export default function DashboardsPage() {
  const team_id = useTeamScope();
  const list = useApi<{ items: Dashboard[] }>(withTeam('/v1/dashboards', team_id));
  const markOf = useMarks('dashboard');
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [template, setTemplate] = useState('');
  const { busy, error, submit } = useSubmit(async () => {
    const made = await api<Dashboard>('POST', '/v1/dashboards', { name, description, ...(template ? { template_key: template } : {}), ...teamBody(team_id) });
    navigate(`/dashboards/${made.id}`);
  });
  return (
    <section>
      <h1>{t('dash.title')}</h1>
      <p class="hint">{t('dash.intro')}</p>
      <Listed loaded={list} items={(d) => d.items} empty={t('dash.empty')}>
        {(d) => (
          <table>
            <thead><tr>
              <th scope="col">{t('dash.name')}</th><th scope="col">{t('dash.widgets')}</th><th scope="col">{t('dash.sharing')}</th><th scope="col">{t('dash.updated')}</th>
            </tr></thead>
            <tbody>{d.items.map((x) => (
              <tr key={x.id}>
                <td><Link href={`/dashboards/${x.id}`}>{x.name}</Link> <ManagedBadge mark={markOf(x.id)} />{x.description && <p class="hint">{x.description}</p>}</td>
                <td>{x.widget_count}</td>
                <td><span class="badge">{x.is_public ? t('dash.shared') : t('dash.private')}</span></td>
                <td>{formatTime(x.updated_at)}</td>
              </tr>
            ))}</tbody>
          </table>
        )}
      </Listed>
      <h2>{t('dash.new')}</h2>
      <form onSubmit={submit} class="narrow">
        <Field id="dash-name" label={t('dash.name')}><input id="dash-name" required maxLength={200} value={name} onInput={(e) => setName(str(e))} /></Field>
        <Field id="dash-description" label={t('dash.description')}><textarea id="dash-description" rows={2} maxLength={2000} value={description} onInput={(e) => setDescription(str(e))} /></Field>
        <Field id="dash-template" label={t('dash.template')}>
          <select id="dash-template" value={template} onChange={(e) => setTemplate(str(e))}>
            <option value="">{t('dash.template.blank')}</option>
            {TEMPLATES.map((k) => <option key={k} value={k}>{t(`dash.template.${k}`)}</option>)}
          </select>
        </Field>
        <Refusal id="dash-form-error" error={error} />
        <button type="submit" class="primary" disabled={busy}>{t('dash.create')}</button>
      </form>
    </section>
  );
}
