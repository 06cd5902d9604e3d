import type { WebhookDelivery } from '@vantage/shared-protocol';
import { formatTime, t } from '../../i18n/i18n.js';

/** One delivery: event, status, attempts with their log (folded), and the redeliver button. */
export function DeliveryRow({ delivery: d, redeliver }: { delivery: WebhookDelivery; redeliver: () => void }) {
  return (
    <tr data-delivery={d.id}>
      <td><code>{d.event_type}</code></td>
      <td><span class={`badge delivery-${d.status}`}>{t(`deliveries.status.${d.status}`)}</span></td>
      <td>{formatTime(d.created_at)}</td>
      <td>
        <details>
          <summary>{t('deliveries.attempts', { n: d.attempt_count })}</summary>
          <ol class="attempts">{d.attempts.map((a) => (
            <li key={a.attempt}>
              {formatTime(a.started_at)}: {t(`deliveries.outcome.${a.outcome}`)}
              {a.status_code !== null && ` HTTP ${a.status_code}`}{a.latency_ms !== null && `, ${a.latency_ms} ms`}{a.error && `: ${a.error}`}
            </li>
          ))}</ol>
        </details>
        {d.last_error && <p class="hint">{d.last_error}</p>}
      </td>
      <td><button type="button" aria-label={t('deliveries.redeliver_named', { event: d.event_type })} onClick={redeliver}>{t('deliveries.redeliver')}</button></td>
    </tr>
  );
}
