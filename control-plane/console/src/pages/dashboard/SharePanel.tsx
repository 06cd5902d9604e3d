import type { Dashboard } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useAction } from '../../api/use-action.js';
import { ShownOnce } from '../../components/ShownOnce.js';
import { FormError } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';

/**
 * The dashboard's share link (`share_url`, the console's public page of its token; it answers
 * only while the dashboard is public) and its rotation (POST …/share-token/rotate: the old link
 * stops working at once). docs/api/dashboards.md "Sharing".
 */
export function SharePanel({ dashboard, rotated }: { dashboard: Dashboard; rotated: () => void }) {
  const action = useAction();
  const rotate = () => action.run(async () => {
    if (!confirm(t('dash.rotate_confirm'))) return;
    await api('POST', `/v1/dashboards/${encodeURIComponent(dashboard.id)}/share-token/rotate`);
    rotated();
  });
  return (
    <>
      <h2>{t('dash.share')}</h2>
      <p class="hint">{dashboard.is_public ? t('dash.share_on') : t('dash.share_off')}</p>
      <ShownOnce key={dashboard.share_token} intro={t('dash.share_url')} value={dashboard.share_url} copyLabel={t('dash.copy_link')} testId="share-url" />
      {dashboard.is_public && <p><a href={dashboard.share_url} target="_blank" rel="noopener">{t('dash.open_shared')}<span class="sr-only"> {t('sp.opens_new')}</span></a></p>}
      <FormError id="dash-rotate-error" error={action.error} />
      <button type="button" onClick={() => void rotate()}>{t('dash.rotate')}</button>
    </>
  );
}
