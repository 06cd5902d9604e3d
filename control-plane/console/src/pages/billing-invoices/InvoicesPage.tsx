import type { BillingInvoice } from '@vantage/shared-protocol';
import { useApi } from '../../api/use-api.js';
import { Link } from '../../components/Link.js';
import { Listed } from '../../components/Listed.js';
import { formatMinor } from '../../components/money.js';
import { formatTime, t } from '../../i18n/i18n.js';
import { BillingTabs } from '../billing/BillingTabs.js';
import { InvoiceStatus } from '../billing/InvoiceStatus.js';

/**
 * Invoices (GET /v1/billing/invoices, newest first): when, what for, amount, status, when paid;
 * each opens its page (docs/api/billing.md "Subscribing").
 */
export default function InvoicesPage() {
  const invoices = useApi<{ items: BillingInvoice[] }>('/v1/billing/invoices');
  return (
    <section>
      <h1>{t('billing.invoices')}</h1>
      <BillingTabs here="/billing/invoices" />
      <Listed loaded={invoices} items={(d) => d.items} empty={<>{t('billing.invoices_empty')} <Link href="/billing">{t('billing.to_plan')}</Link></>}>
        {(d) => (
          <table>
            <thead><tr>
              <th scope="col">{t('billing.created')}</th><th scope="col">{t('billing.description')}</th><th scope="col">{t('billing.amount')}</th>
              <th scope="col">{t('billing.status')}</th><th scope="col">{t('billing.paid_at')}</th>
            </tr></thead>
            <tbody>{d.items.map((i) => (
              <tr key={i.id}>
                <td><Link href={`/billing/invoices/${i.id}`}>{formatTime(i.created_at)}</Link></td>
                <td>{i.description}</td>
                <td>{formatMinor(i.amount, i.currency)}</td>
                <td><InvoiceStatus status={i.status} /></td>
                <td>{i.paid_at ? formatTime(i.paid_at) : ''}</td>
              </tr>
            ))}</tbody>
          </table>
        )}
      </Listed>
    </section>
  );
}
