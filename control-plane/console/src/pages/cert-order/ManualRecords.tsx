import type { CertManualChallenge } from '@vantage/shared-protocol';
import { CopyButton } from '../../components/CopyButton.js';
import { t } from '../../i18n/i18n.js';

/** The TXT records a manual-dns order waits for (docs/api/certificates.md "Orders"): name and value, each with a copy button, and what is missing while a record is not seen. */
export function ManualRecords({ records }: { records: CertManualChallenge[] }) {
  return (
    <>
      <h2>{t('order.records')}</h2>
      <p class="hint">{t('order.records_intro')}</p>
      <table>
        <thead><tr><th scope="col">{t('order.record_name')}</th><th scope="col">{t('order.record_value')}</th><th scope="col">{t('order.record_seen')}</th></tr></thead>
        <tbody>{records.map((r) => (
          <tr key={`${r.fqdn} ${r.value}`}>
            <td><code>{r.fqdn}</code> <CopyButton value={r.fqdn} label={t('order.copy_name', { name: r.fqdn })} /></td>
            <td><code>{r.value}</code> <CopyButton value={r.value} label={t('order.copy_value', { name: r.fqdn })} /></td>
            <td>{r.message ?? t('order.record_seen_yes')}</td>
          </tr>
        ))}</tbody>
      </table>
    </>
  );
}
