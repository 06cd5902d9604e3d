import { createHash, sign } from 'node:crypto';
import type { Config } from '../config/index.js';
import type { Sql } from '../db/sql.js';
import { activeSigningKey } from './keys.js';
import { recordStep } from './records.db.js';
import { contentHash, signedMessage, writeSeal } from './seal.js';

/** A signed report: the sealed PDF and what was signed. */
export interface SignedReport {
  pdf: Buffer;
  content_hash: string;
  key_id: string;
  key_version: number;
  /** Server time of the signature (the report's `tsa_time`: no RFC 3161 time-stamp authority). */
  signed_at: Date;
  /** base64url Ed25519 signature. */
  signature: string;
}

/** Attempts of a step beyond the first (docs/api/verdicts.md "Attestation records": retries 0-3). */
export const ATTESTATION_RETRIES_MAX = 3;

/**
 * The idempotency key of the `signed` record of attempt `retry_count` at signing `pdf` as
 * `report_id` (docs/api/verdicts.md "Attestation records"): `<report>:signed:<attempt>:<digest>`,
 * `digest` the first 16 hex digits of the document's content hash (of its bytes when it has no
 * seal slot). The same document signed again at the same attempt keeps one record; a report
 * signed anew (another document: a leaderboard report sent back to draft and reviewed again)
 * gets records of its own.
 */
export function signedRecordKey(report_id: string, pdf: Uint8Array, retry_count: number): string {
  const hash = contentHash(pdf) ?? `sha256:${createHash('sha256').update(pdf).digest('hex')}`;
  return `${report_id}:signed:${retry_count}:${hash.slice('sha256:'.length, 'sha256:'.length + 16)}`;
}

/**
 * Sign the PDF `pdf` (written with a seal placeholder: seal.ts) of report `report_id` (a `v_`,
 * `cr_` or `lb_` id) with the active attestation key: Ed25519 (node:crypto) over the content
 * hash, the key and the time, sealed into the document. Writes the `signed` attestation record of
 * attempt `retry_count` (0-3; key: {@link signedRecordKey}) as success, or as failure with the
 * error before rethrowing it.
 * @throws Error when the document has no seal slot; SecretKeyError when the key cannot be opened
 */
export async function signReport(deps: { sql: Sql; config: Config }, report_id: string, pdf: Uint8Array, retry_count = 0, now: Date = new Date()): Promise<SignedReport> {
  const idempotency_key = signedRecordKey(report_id, pdf, retry_count);
  try {
    const hash = contentHash(pdf);
    if (!hash) throw new Error('the document has no seal slot');
    const { key, private_key } = await activeSigningKey(deps);
    const seal = { key_id: key.id, key_version: key.key_version, signed_at: now.toISOString(), content_hash: hash };
    const signature = sign(null, signedMessage(seal), private_key).toString('base64url');
    const sealed = writeSeal(pdf, { ...seal, signature });
    await recordStep(deps.sql, { report_id, action: 'signed', status: 'success', retry_count, key_id: key.id, external_id: hash, idempotency_key, error_detail: null });
    return { pdf: sealed, content_hash: hash, key_id: key.id, key_version: key.key_version, signed_at: now, signature };
  } catch (err) {
    await recordStep(deps.sql, { report_id, action: 'signed', status: 'failure', retry_count, key_id: null, external_id: null, idempotency_key, error_detail: String((err as Error).message).slice(0, 1000) });
    throw err;
  }
}
