import { useState } from 'preact/hooks';
import type { AlertChannel, AlertEmailOptInResult } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useAction } from '../../api/use-action.js';
import { FormError } from '../../components/states.js';
import { formatTime, t } from '../../i18n/i18n.js';

/**
 * The recipients of an e-mail channel (docs/api/alerting.md "E-mail recipients"): each address of
 * its `to` with its state, when the last opt-in e-mail went, when it was confirmed or
 * unsubscribed; a pending address gets a new opt-in e-mail on request
 * (POST /v1/alert-channels/{id}/recipients/opt-in), whose refusal (a confirmed or unsubscribed
 * address, a resend within the minute) is shown as the API says it. `changed` reloads the channels.
 */
export function Recipients({ channel, changed }: { channel: AlertChannel; changed: () => void }) {
  const action = useAction();
  const [sent, setSent] = useState<AlertEmailOptInResult | null>(null);
  const resend = (address: string) => action.run(async () => {
    setSent(null);
    setSent(await api<AlertEmailOptInResult>('POST', `/v1/alert-channels/${encodeURIComponent(channel.id)}/recipients/opt-in`, { address }));
    changed();
  });
  const errorId = `recipients-error-${channel.id}`;
  return (
    <>
      <h2>{t('recipients.title', { name: channel.name })}</h2>
      <table data-testid={`recipients-${channel.id}`}>
        <thead><tr>
          <th scope="col">{t('recipients.address')}</th><th scope="col">{t('recipients.state')}</th><th scope="col">{t('recipients.sent_at')}</th>
          <th scope="col">{t('recipients.since')}</th><th scope="col"><span class="sr-only">{t('events.actions')}</span></th>
        </tr></thead>
        <tbody>{(channel.recipients ?? []).map((r) => (
          <tr key={r.address}>
            <td>{r.address}</td>
            <td>{t(`recipients.state.${r.state}`)}</td>
            <td>{r.opt_in_sent_at ? formatTime(r.opt_in_sent_at) : t('recipients.never')}</td>
            <td>{formatTime(r.confirmed_at ?? r.unsubscribed_at)}</td>
            <td class="actions">{r.state === 'pending' && (
              <button type="button" aria-label={t('recipients.resend_named', { address: r.address })} onClick={() => void resend(r.address)}>{t('recipients.resend')}</button>
            )}</td>
          </tr>
        ))}</tbody>
      </table>
      {sent && <p role="status">{t(`recipients.sent.${sent.email_delivery}`, { address: sent.address })}</p>}
      <FormError id={errorId} error={action.error} />
    </>
  );
}
