import { newId } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';

/** An `attestation_records` row: one step (signed, s3_archived, revoked) of a signed report. */
export interface AttestationRecordRow {
  id: string;
  report_id: string;
  action: 'signed' | 's3_archived' | 'revoked';
  status: 'pending' | 'success' | 'failure';
  retry_count: number;
  key_id: string | null;
  external_id: string | null;
  idempotency_key: string;
  error_detail: string | null;
  created_at: Date;
  completed_at: Date | null;
}

/**
 * Write the outcome of one attempt of a step, keyed by `idempotency_key` (`<report>:<action>:<attempt>`):
 * writing the same attempt twice keeps the first. `status` success or failure completes it now.
 */
export async function recordStep(ex: SqlExecutor, r: Pick<AttestationRecordRow, 'report_id' | 'action' | 'status' | 'retry_count' | 'key_id' | 'external_id' | 'idempotency_key' | 'error_detail'>): Promise<void> {
  await ex`
    INSERT INTO attestation_records (id, report_id, action, status, retry_count, key_id, external_id, idempotency_key, error_detail, completed_at)
    VALUES (${newId('attestation_record')}, ${r.report_id}, ${r.action}, ${r.status}, ${r.retry_count}, ${r.key_id}, ${r.external_id}, ${r.idempotency_key},
      ${r.error_detail}, ${r.status === 'pending' ? null : new Date()})
    ON CONFLICT (idempotency_key) DO NOTHING`;
}

/** The records of `report_id`, oldest first. */
export async function recordsOf(ex: SqlExecutor, report_id: string): Promise<AttestationRecordRow[]> {
  return ex<AttestationRecordRow[]>`SELECT * FROM attestation_records WHERE report_id = ${report_id} ORDER BY created_at, id`;
}

/** Ids of the reports key `key_id` signed. */
export async function reportsSignedBy(ex: SqlExecutor, key_id: string): Promise<string[]> {
  const rows = await ex<{ report_id: string }[]>`
    SELECT DISTINCT report_id FROM attestation_records WHERE key_id = ${key_id} AND action = 'signed' AND status = 'success'`;
  return rows.map((r) => r.report_id);
}
