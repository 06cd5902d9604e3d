import type { BillingInvoice } from '@vantage/shared-protocol';
import { useApi } from '../../api/use-api.js';
import { Link } from '../../components/Link.js';
import { formatMinor } from '../../components/money.js';
import { ErrorState, Loading } from '../../components/states.js';
import { formatTime, t } from '../../i18n/i18n.js';
import { BillingTabs } from '../billing/BillingTabs.js';
import { InvoiceStatus } from '../billing/InvoiceStatus.js';

/**
 * One invoice (GET /v1/billing/invoices/{id}): amount, what for, status, when made and paid, why a
 * payment failed. It is the manual provider's checkout page: an open invoice there says how it is
 * paid (an administrator marks it paid); a payment provider's open invoice links to its pay page
 * (docs/api/billing.md "Payment providers").
 */
export default function InvoicePage({ params }: { params: Record<string, string> }) {
  const invoice = useApi<BillingInvoice>(`/v1/billing/invoices/${encodeURIComponent(params.id!)}`);
  if (invoice.error) return <ErrorState error={invoice.error} retry={invoice.reload} />;
  if (!invoice.data) return <Loading />;
  const i = invoice.data;
  const here = i.pay_url !== null && new URL(i.pay_url, location.origin).pathname === location.pathname;
  return (
    <section>
      <h1>{t('billing.invoice_title', { amount: formatMinor(i.amount, i.currency) })}</h1>
      <BillingTabs here="" />
      <dl class="facts">
        <dt>{t('billing.description')}</dt><dd>{i.description}</dd>
        <dt>{t('billing.amount')}</dt><dd data-testid="invoice-amount">{formatMinor(i.amount, i.currency)}</dd>
        <dt>{t('billing.status')}</dt><dd><InvoiceStatus status={i.status} /></dd>
        <dt>{t('billing.created')}</dt><dd>{formatTime(i.created_at)}</dd>
        {i.paid_at && <><dt>{t('billing.paid_at')}</dt><dd>{formatTime(i.paid_at)}</dd></>}
        {i.failure_reason && <><dt>{t('billing.failure_reason')}</dt><dd>{i.failure_reason}</dd></>}
        <dt>{t('billing.invoice_id')}</dt><dd><code>{i.id}</code></dd>
      </dl>
      {i.status === 'open' && (here || i.pay_url === null
        ? <p class="hint" role="status">{t('billing.manual_pay', { id: i.id })}</p>
        : <p><a class="button primary" href={i.pay_url}>{t('billing.pay')}</a></p>)}
      <p><Link href="/billing/invoices">{t('billing.all_invoices')}</Link></p>
    </section>
  );
}
