import type { VerdictOrder } from '@vantage/shared-protocol';
import { useApi } from '../../api/use-api.js';
import { Link } from '../../components/Link.js';
import { Listed } from '../../components/Listed.js';
import { Pager } from '../../components/Pager.js';
import { formatTime, t } from '../../i18n/i18n.js';
import { navigate, useLocation } from '../../router.js';
import { OrderForm } from './OrderForm.js';

type OrderPage = { orders: Array<Omit<VerdictOrder, 'attestation_records'>>; total: number; limit: number; offset: number };
const PAGE = 20;

/**
 * Verdict orders (GET /v1/verdict/orders, newest first, 20 a page; `page` in the URL): created,
 * template, target, window, status, price; each opens its page; the form orders a new report
 * (docs/api/verdicts.md "Orders").
 */
export default function VerdictsPage() {
  const { query } = useLocation();
  const page = Number(query.get('page') ?? '1') || 1;
  const orders = useApi<OrderPage>(`/v1/verdict/orders?limit=${PAGE}&offset=${(page - 1) * PAGE}`);
  return (
    <section>
      <h1>{t('verdicts.title')}</h1>
      <p class="hint">{t('verdicts.intro')}</p>
      <Listed loaded={orders} items={(d) => d.orders} empty={t('verdicts.empty')}>
        {(d) => (
          <>
            <table>
              <thead><tr>
                <th scope="col">{t('verdicts.created')}</th><th scope="col">{t('verdicts.template')}</th><th scope="col">{t('verdicts.target')}</th>
                <th scope="col">{t('verdicts.window')}</th><th scope="col">{t('verdicts.status')}</th><th scope="col">{t('verdicts.price')}</th>
              </tr></thead>
              <tbody>{d.orders.map((o) => (
                <tr key={o.id}>
                  <td><Link href={`/verdicts/${o.id}`}>{formatTime(o.created_at)}</Link></td>
                  <td>{t(`verdicts.template.${o.template}`)}</td>
                  <td class="clip"><code>{o.target}</code></td>
                  <td>{formatTime(o.time_window_start)} – {formatTime(o.time_window_end)}</td>
                  <td>{t(`verdicts.status.${o.status}`)}</td>
                  <td>{t('verdicts.cny', { n: o.price_cny })} · {t(`verdicts.payment.${o.payment_method}`)}</td>
                </tr>
              ))}</tbody>
            </table>
            <Pager page={page} pages={Math.max(1, Math.ceil(d.total / PAGE))} total={d.total} onPage={(p) => navigate(p > 1 ? `/verdicts?page=${p}` : '/verdicts', true)} />
          </>
        )}
      </Listed>
      <OrderForm created={orders.reload} />
    </section>
  );
}
