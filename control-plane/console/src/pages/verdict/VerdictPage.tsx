import type { VerdictOrder } from '@vantage/shared-protocol';
import { sessionFetch } from '../../api/client.js';
import { useApi } from '../../api/use-api.js';
import { useAction } from '../../api/use-action.js';
import { Link } from '../../components/Link.js';
import { ErrorState, FormError, Loading } from '../../components/states.js';
import { formatTime, t } from '../../i18n/i18n.js';

/** Fetch the signed PDF with the session (a plain link sends no bearer token) and hand it to the browser as a download. */
async function downloadPdf(order: VerdictOrder): Promise<void> {
  const res = await sessionFetch(order.pdf_url!);
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  const href = URL.createObjectURL(await res.blob());
  const a = Object.assign(document.createElement('a'), { href, download: `${order.id}.pdf` });
  a.click();
  setTimeout(() => URL.revokeObjectURL(href), 60_000);
}

/**
 * One verdict order (GET /v1/verdict/orders/{id}): template, target, window, status, price and
 * payment, the signed report's content hash and key once completed (its PDF downloaded), why it
 * failed, and its attestation records (docs/api/verdicts.md "Attestation records").
 */
export default function VerdictPage({ params }: { params: Record<string, string> }) {
  const order = useApi<VerdictOrder>(`/v1/verdict/orders/${encodeURIComponent(params.id!)}`);
  const action = useAction();
  if (order.error) return <ErrorState error={order.error} retry={order.reload} />;
  if (!order.data) return <Loading />;
  const o = order.data;
  return (
    <section>
      <h1>{t('verdicts.order_title', { template: t(`verdicts.template.${o.template}`) })}</h1>
      <dl class="facts">
        <dt>{t('verdicts.status')}</dt><dd data-testid="verdict-status">{t(`verdicts.status.${o.status}`)}</dd>
        <dt>{t('verdicts.target')}</dt><dd><code>{o.target}</code></dd>
        <dt>{t('verdicts.window')}</dt><dd>{formatTime(o.time_window_start)} – {formatTime(o.time_window_end)}</dd>
        <dt>{t('verdicts.price')}</dt><dd>{t('verdicts.cny', { n: o.price_cny })} · {t(`verdicts.payment.${o.payment_method}`)}</dd>
        {o.notes && <><dt>{t('verdicts.notes')}</dt><dd>{o.notes}</dd></>}
        <dt>{t('verdicts.notify_email')}</dt><dd>{o.notify_email}</dd>
        <dt>{t('verdicts.created')}</dt><dd>{formatTime(o.created_at)}</dd>
        {o.paid_at && <><dt>{t('verdicts.paid_at')}</dt><dd>{formatTime(o.paid_at)}</dd></>}
        {o.completed_at && <><dt>{t('verdicts.completed_at')}</dt><dd>{formatTime(o.completed_at)}</dd></>}
        {o.content_hash && <><dt>{t('verdicts.content_hash')}</dt><dd><code>{o.content_hash}</code></dd></>}
        {o.signature_key_id && <><dt>{t('verdicts.key')}</dt><dd><code>{o.signature_key_id}</code></dd></>}
        {o.error_detail && <><dt>{t('verdicts.error')}</dt><dd>{o.error_detail}</dd></>}
      </dl>
      {o.status === 'created' && o.pay_url && <p><a class="button primary" href={o.pay_url}>{t('verdicts.pay')}</a></p>}
      {o.pdf_url && <p><button type="button" class="primary" onClick={() => void action.run(() => downloadPdf(o))}>{t('verdicts.download')}</button></p>}
      <FormError id="verdict-error" error={action.error} />
      <h2>{t('verdicts.records')}</h2>
      {o.attestation_records.length === 0 ? <p class="hint">{t('verdicts.records_empty')}</p> : (
        <table>
          <thead><tr><th scope="col">{t('verdicts.record_action')}</th><th scope="col">{t('verdicts.status')}</th><th scope="col">{t('verdicts.attempt')}</th><th scope="col">{t('verdicts.reference')}</th><th scope="col">{t('verdicts.completed_at')}</th></tr></thead>
          <tbody>{o.attestation_records.map((r) => (
            <tr key={r.id}><td>{r.action}</td><td>{r.status}{r.error_detail && <p class="hint">{r.error_detail}</p>}</td><td>{r.retry_count}</td><td class="clip"><code>{r.external_id ?? ''}</code></td><td>{formatTime(r.completed_at)}</td></tr>
          ))}</tbody>
        </table>
      )}
      <p><Link href="/verdicts">{t('verdicts.all')}</Link></p>
    </section>
  );
}
