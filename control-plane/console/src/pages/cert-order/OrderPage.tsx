import { useEffect } from 'preact/hooks';
import type { CertOrder } from '@vantage/shared-protocol';
import { useAction } from '../../api/use-action.js';
import { useApi } from '../../api/use-api.js';
import { Link } from '../../components/Link.js';
import { ErrorState, FormError, Loading } from '../../components/states.js';
import { formatTime, t } from '../../i18n/i18n.js';
import { CertificateTabs } from '../certificates/CertificateTabs.js';
import { toneOf } from '../certificates/status-tone.js';
import { ManualRecords } from './ManualRecords.js';

/** States in which the order's job is at work: the page reads the order again every few seconds. */
const MOVING = new Set<CertOrder['status']>(['validating', 'issuing', 'revoking']);
const POLL_MS = 3000;

/**
 * One certificate order (GET /v1/certificates/orders/{id}): status, SANs in Unicode (and ASCII
 * where they differ), challenge, credential, retries and the last error; submit a draft, cancel
 * (draft, validating), retry a failed one; for manual DNS the TXT records to create and
 * "confirm" (`POST …/confirm`); the order's events; its certificate once issued
 * (docs/api/certificates.md "Orders").
 */
export default function OrderPage({ params }: { params: Record<string, string> }) {
  const order = useApi<CertOrder>(`/v1/certificates/orders/${encodeURIComponent(params.id!)}`);
  const action = useAction(order.reload);
  const status = order.data?.status;
  useEffect(() => {
    if (!status || !MOVING.has(status)) return;
    const timer = setInterval(order.reload, POLL_MS);
    return () => clearInterval(timer);
  }, [status, order.reload]);
  if (order.error && !order.data) return <ErrorState error={order.error} retry={order.reload} />;
  if (!order.data) return <Loading />;
  const o = order.data;
  const path = `/v1/certificates/orders/${o.id}`;
  const waiting = o.status === 'validating' && o.challenge_type === 'manual-dns' && o.manual_challenges.length > 0;
  return (
    <section>
      <h1>{t('order.title', { name: o.sans_unicode[0] ?? String(o.id) })}</h1>
      <CertificateTabs here="/certificates/orders" />
      <dl class="facts">
        <dt>{t('certs.status')}</dt><dd><span class={toneOf(o.status)} data-testid="order-status">{t(`orders.status.${o.status}`)}</span></dd>
        <dt>{t('orders.sans')}</dt><dd>{o.sans_unicode.map((s, i) => <div key={s}>{s}{o.sans[i] !== s && <span class="hint"> (<code>{o.sans[i]}</code>)</span>}</div>)}</dd>
        <dt>{t('orders.challenge')}</dt><dd>{t(`orders.challenge.${o.challenge_type}`)}</dd>
        {o.dns_credential_id !== null && <><dt>{t('orders.credential')}</dt><dd><Link href="/dns-credentials">#{o.dns_credential_id}</Link></dd></>}
        <dt>{t('order.ca')}</dt><dd>{o.ca} ({o.tier})</dd>
        <dt>{t('orders.retries')}</dt><dd>{o.retry_count}</dd>
        {o.last_error && <><dt>{t('order.last_error')}</dt><dd class="form-error">{o.last_error}</dd></>}
        <dt>{t('keys.created')}</dt><dd>{formatTime(o.created_at)}</dd>
        {o.finalized_at && <><dt>{t('order.finalized')}</dt><dd>{formatTime(o.finalized_at)}</dd></>}
        {o.cert_id !== null && <><dt>{t('order.certificate')}</dt><dd><Link href="/certificates">{t('order.certificate_link', { id: o.cert_id })}</Link></dd></>}
      </dl>
      <div class="actions">
        {o.status === 'draft' && <button type="button" class="primary" onClick={() => void action.call('POST', `${path}/submit`)}>{t('order.submit')}</button>}
        {waiting && <button type="button" class="primary" onClick={() => void action.call('POST', `${path}/confirm`)}>{t('order.confirm')}</button>}
        {o.status === 'failed' && <button type="button" class="primary" onClick={() => void action.call('POST', `${path}/retry`)}>{t('order.retry')}</button>}
        {(o.status === 'draft' || o.status === 'validating') && (
          <button type="button" class="danger" onClick={() => { if (confirm(t('order.cancel_confirm'))) void action.call('POST', `${path}/cancel`); }}>{t('order.cancel')}</button>
        )}
        <button type="button" onClick={order.reload}>{t('order.refresh')}</button>
      </div>
      <FormError id="order-action-error" error={action.error} />
      {waiting && <ManualRecords records={o.manual_challenges} />}
      <h2>{t('order.events')}</h2>
      <table>
        <thead><tr><th scope="col">#</th><th scope="col">{t('order.event')}</th><th scope="col">{t('order.when')}</th><th scope="col">{t('order.detail')}</th></tr></thead>
        <tbody>{o.events.map((e) => (
          <tr key={e.action_seq}><td>{e.action_seq}</td><td><code>{e.action}</code></td><td>{formatTime(e.occurred_at)}</td><td>{e.detail ?? ''}</td></tr>
        ))}</tbody>
      </table>
      <p><Link href="/certificates/orders">{t('order.all')}</Link></p>
    </section>
  );
}
