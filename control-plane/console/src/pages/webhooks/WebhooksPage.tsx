import type { WebhookEndpoint, WebhookEndpointList } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { useAction } from '../../api/use-action.js';
import { Link } from '../../components/Link.js';
import { Listed } from '../../components/Listed.js';
import { FormError } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';
import { EndpointForm } from './EndpointForm.js';

/**
 * Webhook endpoints (/v1/webhook-endpoints, the first 200): URL, events, state; enable or
 * disable, delete, a link to each one's deliveries, and the form for a new one (docs/api/webhooks.md).
 */
export default function WebhooksPage() {
  const endpoints = useApi<WebhookEndpointList>('/v1/webhook-endpoints?page_size=200');
  const action = useAction(endpoints.reload);
  const remove = (e: WebhookEndpoint) => action.run(async () => {
    if (!confirm(t('webhooks.delete_confirm', { url: e.url }))) return;
    await api('DELETE', `/v1/webhook-endpoints/${encodeURIComponent(e.id)}`);
    endpoints.reload();
  });
  return (
    <section>
      <h1>{t('webhooks.title')}</h1>
      <p class="hint">{t('webhooks.intro')}</p>
      <FormError id="webhooks-error" error={action.error} />
      <Listed loaded={endpoints} items={(d) => d.items} empty={t('webhooks.empty')}>
        {(d) => (
          <table>
            <thead><tr><th scope="col">{t('channels.field.url')}</th><th scope="col">{t('webhooks.events')}</th><th scope="col">{t('events.status')}</th><th scope="col"><span class="sr-only">{t('events.actions')}</span></th></tr></thead>
            <tbody>{d.items.map((e) => (
              <tr key={e.id}>
                <td class="clip"><Link href={`/webhooks/${e.id}`}>{e.url}</Link>{e.description && <p class="hint">{e.description}</p>}</td>
                <td>{e.events.join(', ')}</td>
                <td>{e.enabled ? t('webhooks.enabled') : t(e.disabled_reason === 'failing' ? 'webhooks.disabled_failing' : 'webhooks.disabled')}</td>
                <td class="actions">
                  <button type="button" aria-label={t(e.enabled ? 'webhooks.disable_named' : 'webhooks.enable_named', { url: e.url })} onClick={() => void action.call('PATCH', `/v1/webhook-endpoints/${encodeURIComponent(e.id)}`, { enabled: !e.enabled })}>{e.enabled ? t('policies.disable') : t('policies.enable')}</button>
                  <button type="button" class="danger" aria-label={t('webhooks.delete_named', { url: e.url })} onClick={() => void remove(e)}>{t('channels.delete')}</button>
                </td>
              </tr>
            ))}</tbody>
          </table>
        )}
      </Listed>
      <EndpointForm created={endpoints.reload} />
    </section>
  );
}
