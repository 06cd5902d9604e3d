import { useState } from 'preact/hooks';
import type { BillingInvoice } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';
import { useSubmit } from '../../api/use-submit.js';
import { Field } from '../../components/Field.js';
import { formatMinor } from '../../components/money.js';
import { Refusal } from '../../components/Refusal.js';
import { t } from '../../i18n/i18n.js';

/**
 * Mark an open invoice paid by its number, as the payer quotes it on the manual provider's
 * checkout page (POST /v1/admin/billing/invoices/{id}/mark-paid, docs/api/billing.md "Manual");
 * the API's refusal (no such invoice, not open) is shown as it says it.
 */
export function MarkPaidForm() {
  const [id, setId] = useState('');
  const [paid, setPaid] = useState<BillingInvoice | null>(null);
  const { busy, error, submit } = useSubmit(async () => {
    setPaid(null);
    setPaid(await api<BillingInvoice>('POST', `/v1/admin/billing/invoices/${encodeURIComponent(id.trim())}/mark-paid`));
    setId('');
  });
  return (
    <form onSubmit={submit} class="narrow">
      <h2>{t('billing.admin.mark_paid')}</h2>
      <div class="inline">
        <Field id="paid-invoice" label={t('billing.invoice_id')} hint={t('billing.admin.mark_paid_hint')}>
          <input id="paid-invoice" required maxLength={64} pattern="\S+" value={id} aria-describedby="paid-invoice-hint" onInput={(e) => setId((e.target as HTMLInputElement).value)} />
        </Field>
        <button type="submit" class="primary" disabled={busy}>{t('billing.admin.mark')}</button>
      </div>
      {paid && <p role="status">{t('billing.admin.marked', { id: paid.id, amount: formatMinor(paid.amount, paid.currency) })}</p>}
      <Refusal id="paid-error" error={error} />
    </form>
  );
}
