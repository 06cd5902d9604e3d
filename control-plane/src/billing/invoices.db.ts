import { newId } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';

/** An invoice row (billing_invoices): a one-off charge or a provider-issued renewal. Amounts in minor units. */
export interface InvoiceRow {
  id: string;
  user_id: string;
  purpose: string;
  reference_id: string;
  description: string;
  amount_cents: number;
  currency: string;
  status: 'open' | 'paid' | 'void' | 'uncollectible';
  provider: 'manual' | 'stripe';
  pay_url: string;
  ext_checkout_id: string | null;
  ext_invoice_id: string | null;
  failure_reason: string | null;
  expires_at: Date | null;
  paid_at: Date | null;
  created_at: Date;
}

/** Insert an open invoice; `pay_url` is filled once the provider answered ({@link setInvoiceCheckout}). */
export async function insertInvoice(sql: SqlExecutor, inv: {
  user_id: string; purpose: string; reference_id: string; description: string; amount_cents: number; currency: string;
  provider: 'manual' | 'stripe'; expires_at: Date | null; status?: InvoiceRow['status']; ext_invoice_id?: string | null; id?: string;
}): Promise<InvoiceRow> {
  const [row] = await sql<InvoiceRow[]>`
    INSERT INTO billing_invoices (id, user_id, purpose, reference_id, description, amount_cents, currency, status, provider, pay_url, expires_at, ext_invoice_id)
    VALUES (${inv.id ?? newId('billing_invoice')}, ${inv.user_id}, ${inv.purpose}, ${inv.reference_id}, ${inv.description}, ${inv.amount_cents},
            ${inv.currency}, ${inv.status ?? 'open'}, ${inv.provider}, '', ${inv.expires_at}, ${inv.ext_invoice_id ?? null})
    RETURNING *`;
  return row!;
}

/** Record the provider's checkout of an invoice. */
export async function setInvoiceCheckout(sql: SqlExecutor, id: string, pay_url: string, ext_checkout_id: string | null): Promise<void> {
  await sql`UPDATE billing_invoices SET pay_url = ${pay_url}, ext_checkout_id = ${ext_checkout_id} WHERE id = ${id}`;
}

/** Mark an open invoice paid; null when it is not open (already paid, void: a replay changes nothing). Locks the row. */
export async function markInvoicePaidRow(sql: SqlExecutor, id: string, paid_at: Date): Promise<InvoiceRow | null> {
  const [row] = await sql<InvoiceRow[]>`
    UPDATE billing_invoices SET status = 'paid', paid_at = ${paid_at}, failure_reason = NULL
    WHERE id = ${id} AND status IN ('open', 'uncollectible') RETURNING *`;
  return row ?? null;
}

/** Mark an open invoice's payment failed (status stays open while payable; `uncollectible` when `final`). */
export async function markInvoiceFailed(sql: SqlExecutor, id: string, reason: string, final: boolean): Promise<void> {
  await sql`UPDATE billing_invoices SET failure_reason = ${reason}, status = CASE WHEN ${final} THEN 'uncollectible' ELSE status END
            WHERE id = ${id} AND status IN ('open', 'uncollectible')`;
}

/** Void the open invoices of one purpose and reference (a canceled subscription's unpaid first period). */
export async function voidOpenInvoices(sql: SqlExecutor, purpose: string, reference_id: string): Promise<void> {
  await sql`UPDATE billing_invoices SET status = 'void' WHERE purpose = ${purpose} AND reference_id = ${reference_id} AND status = 'open'`;
}

/** One invoice of an account; null for another account's id (answered 404). */
export async function getInvoice(sql: SqlExecutor, user_id: string | null, id: string): Promise<InvoiceRow | null> {
  const [row] = user_id === null
    ? await sql<InvoiceRow[]>`SELECT * FROM billing_invoices WHERE id = ${id}`
    : await sql<InvoiceRow[]>`SELECT * FROM billing_invoices WHERE id = ${id} AND user_id = ${user_id}`;
  return row ?? null;
}

/** An invoice by the provider's checkout or invoice id. */
export async function invoiceByExternal(sql: SqlExecutor, field: 'ext_checkout_id' | 'ext_invoice_id', value: string): Promise<InvoiceRow | null> {
  const [row] = field === 'ext_checkout_id'
    ? await sql<InvoiceRow[]>`SELECT * FROM billing_invoices WHERE ext_checkout_id = ${value}`
    : await sql<InvoiceRow[]>`SELECT * FROM billing_invoices WHERE ext_invoice_id = ${value}`;
  return row ?? null;
}

/** An account's invoices, newest first, at most `limit`. */
export async function listInvoices(sql: SqlExecutor, user_id: string, limit: number): Promise<InvoiceRow[]> {
  return sql<InvoiceRow[]>`SELECT * FROM billing_invoices WHERE user_id = ${user_id} ORDER BY created_at DESC, id DESC LIMIT ${limit}`;
}
