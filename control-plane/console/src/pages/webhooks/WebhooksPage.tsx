import type { WebhookEndpoint, WebhookEndpointList } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { useAction } from '../../api/use-action.js';
import { useMarks } from '../../api/use-marks.js';
import { Link } from '../../components/Link.js';
import { Listed } from '../../components/Listed.js';
import { lockedBy, ManagedBadge, ManagedNote } from '../../components/managed/Managed.js';
import { FormError } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';
import { EndpointForm } from './EndpointForm.js';
import { useTeamScope, withTeam } from '../../api/team-scope.js';

/**
 * Webhook endpoints (/v1/webhook-endpoints, the first 200): URL, events, state; enable or
 * disable, delete, a link to each one's deliveries, and the form for a new one (docs/api/webhooks.md);
 * one applied from a file shows it and is read-only here (docs/api/as-code.md "Marks").
 */
export default function WebhooksPage() {
  const endpoints = useApi<WebhookEndpointList>(withTeam('/v1/webhook-endpoints?page_size=200', useTeamScope()));
  const action = useAction(endpoints.reload);
  const markOf = useMarks('webhook_endpoint');
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
          <>
            <ManagedNote marks={d.items.map((e) => markOf(e.id))} />
            <table>
              <thead><tr><th scope="col">{t('channels.field.url')}</th><th scope="col">{t('webhooks.events')}</th><th scope="col">{t('events.status')}</th><th scope="col"><span class="sr-only">{t('events.actions')}</span></th></tr></thead>
              <tbody>{d.items.map((e) => (
                <tr key={e.id}>
                  <td class="clip"><Link href={`/webhooks/${e.id}`}>{e.url}</Link>{e.description && <p class="hint">{e.description}</p>}<ManagedBadge mark={markOf(e.id)} /></td>
                  <td>{e.events.join(', ')}</td>
                  <td>{e.enabled ? t('webhooks.enabled') : t(e.disabled_reason === 'failing' ? 'webhooks.disabled_failing' : 'webhooks.disabled')}</td>
                  <td class="actions">
                    <button type="button" {...lockedBy(markOf(e.id))} aria-label={t(e.enabled ? 'webhooks.disable_named' : 'webhooks.enable_named', { url: e.url })} onClick={() => void action.call('PATCH', `/v1/webhook-endpoints/${encodeURIComponent(e.id)}`, { enabled: !e.enabled })}>{e.enabled ? t('policies.disable') : t('policies.enable')}</button>
                    <button type="button" class="danger" {...lockedBy(markOf(e.id))} aria-label={t('webhooks.delete_named', { url: e.url })} onClick={() => void remove(e)}>{t('channels.delete')}</button>
                  </td>
                </tr>
              ))}</tbody>
            </table>
          </>
        )}
      </Listed>
      <EndpointForm created={endpoints.reload} />
    </section>
  );
}
