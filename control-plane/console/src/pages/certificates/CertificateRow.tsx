import { useState } from 'preact/hooks';
import type { IssuedCertificate } from '@vantage/shared-protocol';
import { REVOKE_REASONS } from '../../api/vocabulary.js';
import { formatTime, t } from '../../i18n/i18n.js';
import { daysLeft, toneOf } from './status-tone.js';

/** What a row's buttons do (CertificatesPage runs them against the API). */
export interface CertificateActions {
  download(c: IssuedCertificate): void;
  revoke(c: IssuedCertificate, reason: (typeof REVOKE_REASONS)[number]): void;
  monitor(c: IssuedCertificate): void;
}

/** One issued certificate: SANs, issuer, serial, expiry with the days left, status; download, monitor, and revoke with a reason while issued. */
export function CertificateRow({ c, act }: { c: IssuedCertificate; act: CertificateActions }) {
  const [reason, setReason] = useState<(typeof REVOKE_REASONS)[number]>('unspecified');
  const name = c.sans[0] ?? String(c.id);
  const days = daysLeft(c.not_after);
  return (
    <tr data-certificate={c.id}>
      <td>{c.sans.map((s) => <div key={s}><code>{s}</code></div>)}</td>
      <td class="clip" title={c.issuer}>{c.issuer}<p class="hint"><code>{c.serial_hex}</code></p></td>
      <td>{formatTime(c.not_after)}<p class="hint">{days >= 0 ? t('certs.days_left', { n: days }) : t('certs.expired_ago', { n: -days })}</p></td>
      <td><span class={toneOf(c.status)}>{t(`certs.status.${c.status}`)}</span>{c.revoke_reason && <p class="hint">{t(`certs.reason.${c.revoke_reason as (typeof REVOKE_REASONS)[number]}`)}</p>}</td>
      <td><div class="actions">
        <button type="button" aria-label={t('certs.download_named', { name })} onClick={() => act.download(c)}>{t('certs.download')}</button>
        {c.status === 'issued' && <>
          <button type="button" aria-label={t('certs.monitor_named', { name })} onClick={() => act.monitor(c)}>{t('certs.monitor')}</button>
          <select aria-label={t('certs.reason_named', { name })} value={reason} onChange={(e) => setReason((e.target as HTMLSelectElement).value as typeof reason)}>
            {REVOKE_REASONS.map((r) => <option key={r} value={r}>{t(`certs.reason.${r}`)}</option>)}
          </select>
          <button type="button" class="danger" aria-label={t('certs.revoke_named', { name })} onClick={() => act.revoke(c, reason)}>{t('certs.revoke')}</button>
        </>}
      </div></td>
    </tr>
  );
}
