import { useState } from 'preact/hooks';
import type { WebhookDeliveryList, WebhookEndpoint } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { useAction } from '../../api/use-action.js';
import { Link } from '../../components/Link.js';
import { MoveTeam } from '../../components/MoveTeam.js';
import { Listed } from '../../components/Listed.js';
import { Pager } from '../../components/Pager.js';
import { ErrorState, FormError, Loading } from '../../components/states.js';
import { t } from '../../i18n/i18n.js';
import { DeliveryRow } from './DeliveryRow.js';

/**
 * One webhook endpoint and its deliveries (GET …/deliveries, newest first, 20 a page) with their
 * attempt logs; send a test ping, redeliver any delivery; its owner and a move into or out of a
 * team (docs/api/teams.md "Moving a resource") (docs/api/webhooks.md "Delivery, retries and the attempt log").
 */
export default function DeliveriesPage({ params }: { params: Record<string, string> }) {
  const base = `/v1/webhook-endpoints/${encodeURIComponent(params.id!)}`;
  const [page, setPage] = useState(1);
  const endpoint = useApi<WebhookEndpoint>(base);
  const deliveries = useApi<WebhookDeliveryList>(`${base}/deliveries?page=${page}&page_size=20`);
  const action = useAction();
  const [note, setNote] = useState<string | null>(null);
  const post = (path: string, done: string) => action.run(async () => {
    setNote(null);
    await api('POST', `${base}${path}`);
    setNote(done);
    deliveries.reload();
  });
  if (endpoint.error) return <ErrorState error={endpoint.error} retry={endpoint.reload} />;
  if (!endpoint.data) return <Loading />;
  return (
    <section>
      <p><Link href="/webhooks">{t('deliveries.back')}</Link></p>
      <h1>{t('deliveries.title', { url: endpoint.data.url })}</h1>
      <div class="actions">
        <button type="button" onClick={() => void post('/test', t('deliveries.ping_queued'))} disabled={!endpoint.data.enabled}>{t('deliveries.ping')}</button>
        <button type="button" onClick={deliveries.reload}>{t('deliveries.refresh')}</button>
        {note && <span role="status">{note}</span>}
      </div>
      <FormError id="deliveries-error" error={action.error} />
      <Listed loaded={deliveries} items={(d) => d.items} empty={t('deliveries.empty')}>
        {(d) => (
          <>
            <table>
              <thead><tr><th scope="col">{t('deliveries.event')}</th><th scope="col">{t('events.status')}</th><th scope="col">{t('keys.created')}</th><th scope="col">{t('deliveries.log')}</th><th scope="col"><span class="sr-only">{t('events.actions')}</span></th></tr></thead>
              <tbody>{d.items.map((del) => <DeliveryRow key={del.id} delivery={del} redeliver={() => void post(`/deliveries/${encodeURIComponent(del.id)}/redeliver`, t('deliveries.redelivered'))} />)}</tbody>
            </table>
            <Pager page={d.page} pages={Math.max(1, Math.ceil(d.total / d.page_size))} total={d.total} onPage={setPage} />
          </>
        )}
      </Listed>
      <MoveTeam resource={endpoint.data} path={base} moved={endpoint.reload} />
    </section>
  );
}
