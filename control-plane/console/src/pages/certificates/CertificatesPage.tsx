import { useState } from 'preact/hooks';
import type { CertPage, IssuedCertificate, Monitor } from '@vantage/shared-protocol';
import { api, sessionFetch } from '../../api/client.js';
import { useAction } from '../../api/use-action.js';
import { useApi } from '../../api/use-api.js';
import { downloadText } from '../../components/download.js';
import { Link } from '../../components/Link.js';
import { Listed } from '../../components/Listed.js';
import { ListPager } from '../../components/Pager.js';
import { Refusal } from '../../components/Refusal.js';
import { t } from '../../i18n/i18n.js';
import { navigate, useLocation } from '../../router.js';
import { CertificateRow, type CertificateActions } from './CertificateRow.js';
import { CertificateTabs } from './CertificateTabs.js';

/**
 * Issued certificates (GET /v1/certificates, 20 a page; `page` in the URL): SANs, issuer and
 * serial, `not_after` with the days left, status; the PEM chain downloaded with the session
 * (`GET …/{id}/chain`), revoked with a reason (`POST …/{id}/revoke`), and watched by an
 * ssl_expiry monitor made in one call (`POST …/{id}/monitor`) (docs/api/certificates.md
 * "Certificates").
 */
export default function CertificatesPage() {
  const { query } = useLocation();
  const page = Number(query.get('page') ?? '1') || 1;
  const certs = useApi<CertPage<IssuedCertificate>>(`/v1/certificates?page=${page}&page_size=20`);
  const action = useAction();
  const [monitored, setMonitored] = useState<Monitor | null>(null);
  const act: CertificateActions = {
    download: (c) => void action.run(async () => {
      const res = await sessionFetch(`/v1/certificates/${c.id}/chain`);
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      downloadText(await res.text(), `certificate-${c.id}.pem`, 'application/pem-certificate-chain');
    }),
    revoke: (c, reason) => void action.run(async () => {
      if (!confirm(t('certs.revoke_confirm', { name: c.sans[0] ?? String(c.id) }))) return;
      await api('POST', `/v1/certificates/${c.id}/revoke`, { reason });
      certs.reload();
    }),
    monitor: (c) => void action.run(async () => {
      setMonitored(null);
      setMonitored(await api<Monitor>('POST', `/v1/certificates/${c.id}/monitor`));
    }),
  };
  return (
    <section>
      <h1>{t('certs.title')}</h1>
      <CertificateTabs here="/certificates" />
      <Refusal id="certs-error" error={action.error} />
      {monitored && <p role="status">{t('certs.monitored')} <Link href={`/monitors/${monitored.id}`}>{monitored.name}</Link></p>}
      <Listed loaded={certs} items={(d) => d.items} empty={<>{t('certs.empty')} <Link href="/certificates/orders">{t('certs.order_one')}</Link></>}>
        {(d) => (
          <>
            <table>
              <thead><tr>
                <th scope="col">{t('certs.sans')}</th><th scope="col">{t('certs.issuer')}</th><th scope="col">{t('certs.not_after')}</th>
                <th scope="col">{t('certs.status')}</th><th scope="col"><span class="sr-only">{t('events.actions')}</span></th>
              </tr></thead>
              <tbody>{d.items.map((c) => <CertificateRow key={c.id} c={c} act={act} />)}</tbody>
            </table>
            <ListPager list={d} onPage={(p) => navigate(p > 1 ? `/certificates?page=${p}` : '/certificates', true)} />
          </>
        )}
      </Listed>
    </section>
  );
}
