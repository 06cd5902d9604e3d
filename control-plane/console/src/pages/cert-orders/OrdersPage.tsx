import type { CertOrder, CertPage } from '@vantage/shared-protocol';
import { useApi } from '../../api/use-api.js';
import { Link } from '../../components/Link.js';
import { Listed } from '../../components/Listed.js';
import { ListPager } from '../../components/Pager.js';
import { formatTime, t } from '../../i18n/i18n.js';
import { navigate, useLocation } from '../../router.js';
import { CertificateTabs } from '../certificates/CertificateTabs.js';
import { toneOf } from '../certificates/status-tone.js';
import { OrderForm } from './OrderForm.js';

/**
 * Certificate orders, newest first (GET /v1/certificates/orders, 20 a page; `page` in the URL):
 * the SANs in Unicode, challenge type, status, retries, created; each opens its page; the form
 * makes a draft (docs/api/certificates.md "Orders").
 */
export default function OrdersPage() {
  const { query } = useLocation();
  const page = Number(query.get('page') ?? '1') || 1;
  const orders = useApi<CertPage<CertOrder>>(`/v1/certificates/orders?page=${page}&page_size=20`);
  return (
    <section>
      <h1>{t('orders.title')}</h1>
      <CertificateTabs here="/certificates/orders" />
      <Listed loaded={orders} items={(d) => d.items} empty={t('orders.empty')}>
        {(d) => (
          <>
            <table>
              <thead><tr>
                <th scope="col">{t('orders.sans')}</th><th scope="col">{t('orders.challenge')}</th><th scope="col">{t('certs.status')}</th>
                <th scope="col">{t('orders.retries')}</th><th scope="col">{t('keys.created')}</th>
              </tr></thead>
              <tbody>{d.items.map((o) => (
                <tr key={o.id}>
                  <td><Link href={`/certificates/orders/${o.id}`}>{o.sans_unicode.join(', ')}</Link></td>
                  <td>{t(`orders.challenge.${o.challenge_type}`)}</td>
                  <td><span class={toneOf(o.status)}>{t(`orders.status.${o.status}`)}</span></td>
                  <td>{o.retry_count}</td>
                  <td>{formatTime(o.created_at)}</td>
                </tr>
              ))}</tbody>
            </table>
            <ListPager list={d} onPage={(p) => navigate(p > 1 ? `/certificates/orders?page=${p}` : '/certificates/orders', true)} />
          </>
        )}
      </Listed>
      <OrderForm />
    </section>
  );
}
