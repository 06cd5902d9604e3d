import type { PublicDashboard } from '@vantage/shared-protocol';
import { useApi } from '../../api/use-api.js';
import { DashboardView } from '../../components/widgets/DashboardView.js';
import { ErrorState, Loading } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';

/**
 * A shared dashboard as anyone with its link sees it, signed in or not (GET
 * /v1/public/dashboards/{share_token} and …/data): name, description and widgets, read only. A
 * dashboard no longer public, or a rotated token, is the API's 404. docs/api/dashboards.md "Sharing".
 */
export default function SharedDashboardPage({ params }: { params: Record<string, string> }) {
  const base = `/v1/public/dashboards/${encodeURIComponent(params.token!)}`;
  const dashboard = useApi<PublicDashboard>(base);
  if (dashboard.error) return <ErrorState error={dashboard.error} retry={dashboard.reload} />;
  if (!dashboard.data) return <Loading />;
  const d = dashboard.data;
  return (
    <section>
      <h1>{d.name}</h1>
      {d.description && <p class="wrap">{d.description}</p>}
      <p class="hint">{t('dash.shared_view')}</p>
      <DashboardView base={base} layout={d.layout} widgets={d.widgets} empty={t('dash.shared_empty')} />
    </section>
  );
}
