import type { Dashboard } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { useAction } from '../../api/use-action.js';
import { useMarks } from '../../api/use-marks.js';
import { Link } from '../../components/Link.js';
import { lockedBy, ManagedNote } from '../../components/managed/Managed.js';
import { ErrorState, FormError, Loading } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';
import { navigate } from '../../router.js';
import { ArrangedView } from './ArrangedView.js';
import { DashboardSettings } from './DashboardSettings.js';
import { SharePanel } from './SharePanel.js';

/**
 * One dashboard (GET /v1/dashboards/{id}): its widgets drawn from the widget-data call over a
 * chosen range, moved and resized in place (ArrangedView), a link to edit the widget set, its name, description and sharing (PATCH with
 * `expected_version`), the share link and its rotation, delete (docs/api/dashboards.md). One
 * applied from a file is read-only here but for its share link (docs/api/as-code.md "Marks").
 */
export default function DashboardPage({ params }: { params: Record<string, string> }) {
  const base = `/v1/dashboards/${encodeURIComponent(params.id!)}`;
  const dashboard = useApi<Dashboard>(base);
  const remove = useAction();
  const markOf = useMarks('dashboard');
  if (dashboard.error) return <ErrorState error={dashboard.error} retry={dashboard.reload} />;
  if (!dashboard.data) return <Loading />;
  const d = dashboard.data;
  const del = () => remove.run(async () => {
    if (!confirm(t('dash.delete_confirm', { name: d.name }))) return;
    await api('DELETE', base);
    navigate('/dashboards');
  });
  const edit = `/dashboards/${d.id}/widgets`;
  const mark = markOf(d.id);
  return (
    <section>
      <p><Link href="/dashboards">{t('dash.back')}</Link></p>
      <div class="title-row">
        <h1>{d.name}</h1>
        {mark ? <button type="button" {...lockedBy(mark)}>{t('dash.edit_widgets')}</button> : <Link href={edit} class="button">{t('dash.edit_widgets')}</Link>}
      </div>
      <ManagedNote mark={mark} />
      {d.description && <p class="wrap">{d.description}</p>}
      <ArrangedView dashboard={d} base={base} mark={mark} reload={dashboard.reload} empty={<>{t('dash.no_widgets')} <Link href={edit}>{t('dash.edit_widgets')}</Link></>} />
      <DashboardSettings key={d.version} dashboard={d} mark={mark} saved={dashboard.reload} />
      <SharePanel dashboard={d} rotated={dashboard.reload} />
      <h2>{t('dash.delete_heading')}</h2>
      <FormError id="dash-delete-error" error={remove.error} />
      <button type="button" class="danger" {...lockedBy(mark)} onClick={() => void del()}>{t('dash.delete')}</button>
    </section>
  );
}
