import type { Incident } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { useAction } from '../../api/use-action.js';
import { ImpactBadge, IncidentStatusBadge } from '../../components/IncidentBadges.js';
import { Link } from '../../components/Link.js';
import { ErrorState, FormError, Loading } from '../../components/states.js';
import { formatTime, t } from '../../i18n/i18n.js';
import { navigate } from '../../router.js';
import { IncidentEdit } from './IncidentEdit.js';
import { PostmortemEditor } from './PostmortemEditor.js';
import { UpdateForm } from './UpdateForm.js';

/**
 * One incident (GET /v1/incidents/{id}): status, impact, start and end, its updates newest first;
 * post an update that moves its status (resolved closes it, any other reopens it), change its
 * title, impact, pages and components (PATCH), write and publish its postmortem, delete it.
 * docs/api/status-pages.md "Incidents" and "Postmortems".
 */
export default function IncidentDetailPage({ params }: { params: Record<string, string> }) {
  const path = `/v1/incidents/${encodeURIComponent(params.id!)}`;
  const incident = useApi<Incident>(path);
  const remove = useAction();
  if (incident.error) return <ErrorState error={incident.error} retry={incident.reload} />;
  if (!incident.data) return <Loading />;
  const i = incident.data;
  const del = () => remove.run(async () => {
    if (!confirm(t('inc.delete_confirm', { title: i.title }))) return;
    await api('DELETE', path);
    navigate('/incidents');
  });
  return (
    <section>
      <p><Link href="/incidents">{t('inc.back')}</Link></p>
      <div class="title-row">
        <h1>{i.title}</h1>
        <span><IncidentStatusBadge status={i.status} /> <ImpactBadge impact={i.impact} /></span>
      </div>
      <dl class="facts">
        <dt>{t('inc.started')}</dt><dd>{formatTime(i.started_at)}</dd>
        <dt>{t('inc.resolved_at')}</dt><dd>{formatTime(i.resolved_at) || '—'}</dd>
        {i.alert_event_id && <><dt>{t('inc.from_alert')}</dt><dd><code>{i.alert_event_id}</code></dd></>}
      </dl>
      <h2>{t('inc.updates')}</h2>
      {i.updates.length === 0 ? <p class="hint">{t('inc.no_updates')}</p> : (
        <ol class="timeline">{i.updates.map((u) => (
          <li key={u.id}><IncidentStatusBadge status={u.status} /> <time dateTime={u.created_at}>{formatTime(u.created_at)}</time><p class="wrap">{u.message}</p></li>
        ))}</ol>
      )}
      <UpdateForm key={i.status} path={path} current={i.status} posted={incident.reload} />
      <IncidentEdit key={i.updated_at} path={path} incident={i} saved={incident.reload} />
      <PostmortemEditor path={path} />
      <h2>{t('inc.delete_heading')}</h2>
      <FormError id="inc-delete-error" error={remove.error} />
      <button type="button" class="danger" onClick={() => void del()}>{t('inc.delete')}</button>
    </section>
  );
}
