import type { EntitlementRow } from './entitlements.db.js';
import type { InvoiceRow } from './invoices.db.js';

/** An invoice as the API shows it (docs/api/billing.md "Invoices"). */
export function toInvoice(row: InvoiceRow) {
  return {
    id: row.id, amount: Number(row.amount_cents), currency: row.currency, status: row.status, created_at: row.created_at.toISOString(),
    description: row.description, purpose: row.purpose, pay_url: row.status === 'open' ? row.pay_url : null,
    paid_at: row.paid_at?.toISOString() ?? null, failure_reason: row.failure_reason,
  };
}

/** An entitlement as the API shows it. */
export function toEntitlement(row: EntitlementRow) {
  return {
    id: row.id, user_id: row.user_id, kind: row.kind, status: row.status, balance: Number(row.balance), attrs: row.attrs,
    source: row.source, order_ref: row.order_ref, granted_at: row.granted_at.toISOString(), expires_at: row.expires_at?.toISOString() ?? null,
  };
}
