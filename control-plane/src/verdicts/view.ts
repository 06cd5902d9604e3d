import type { VerdictOrder, VerdictTemplate } from '@vantage/shared-protocol';
import type { AttestationRecordRow } from '../attestation/records.db.js';
import type { VerdictOrderRow } from './verdicts.db.js';

/** An attestation record as the API shows it (AttestationRecord; `result` mirrors a finished status). */
export function toAttestationRecord(r: AttestationRecordRow): VerdictOrder['attestation_records'][number] {
  return {
    id: r.id, report_id: r.report_id, action: r.action, status: r.status, result: r.status === 'pending' ? null : r.status, retry_count: r.retry_count,
    external_id: r.external_id, idempotency_key: r.idempotency_key, error_detail: r.error_detail, created_at: r.created_at.toISOString(),
    completed_at: r.completed_at?.toISOString() ?? null,
  };
}

/** An order as the API shows it (docs/api/verdicts.md "Orders"). */
export function toVerdictOrder(row: VerdictOrderRow, records: AttestationRecordRow[] = []): VerdictOrder {
  const iso = (d: Date | null) => d?.toISOString() ?? null;
  return {
    id: row.id, template: row.template as VerdictTemplate, target: row.target, time_window_start: row.time_window_start.toISOString(),
    time_window_end: row.time_window_end.toISOString(), notes: row.notes, notify_email: row.notify_email, webhook_url: row.webhook_url, status: row.status,
    payment_method: row.payment_method, price_cny: Number(row.price_cny), pay_url: row.pay_url, pay_expires_at: iso(row.pay_expires_at),
    content_hash: row.content_hash, signature_key_id: row.key_id, signed_at: iso(row.signed_at),
    pdf_url: row.status === 'completed' ? `/v1/verdict/orders/${row.id}/pdf` : null, error_detail: row.error_detail,
    paid_at: iso(row.paid_at), completed_at: iso(row.completed_at), created_at: row.created_at.toISOString(),
    attestation_records: records.map(toAttestationRecord),
  };
}
