import type { BillingInvoice } from '@vantage/shared-protocol';
import { t } from '../../i18n/i18n.js';

const BADGE: Record<BillingInvoice['status'], string> = { open: 'state-degraded', paid: 'state-up', void: '', uncollectible: 'state-down' };

/** An invoice's status as a badge. */
export function InvoiceStatus({ status }: { status: BillingInvoice['status'] }) {
  return <span class={`badge ${BADGE[status]}`}>{t(`billing.invoice.${status}`)}</span>;
}
