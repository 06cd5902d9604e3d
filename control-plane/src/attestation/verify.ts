import { createHash, createPublicKey, verify } from 'node:crypto';
import { LEGAL_DISCLAIMER, type AttestInvalidReason, type AttestVerifyResponse } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';
import { findKey } from './keys.db.js';
import { contentHash, readSeal, signedMessage } from './seal.js';

const PDF_HEADER = Buffer.from('%PDF-', 'latin1');

/** Whether `pdf` looks whole: the header first, `%%EOF` in its last 1024 bytes, and pdf-lib parses it. */
async function wellFormed(pdf: Buffer): Promise<boolean> {
  if (pdf.length < 64 || !pdf.subarray(0, 5).equals(PDF_HEADER)) return false;
  if (!pdf.subarray(Math.max(0, pdf.length - 1024)).toString('latin1').includes('%%EOF')) return false;
  // pdf-lib is loaded at the first verification, not when the app starts.
  const { PDFDocument } = await import('pdf-lib');
  try {
    await PDFDocument.load(pdf, { updateMetadata: false, throwOnInvalidObject: true });
    return true;
  } catch {
    return false;
  }
}

/**
 * Verify a report PDF (docs/api/verdicts.md "Verification"; public, not enveloped). In order:
 * `malformed_pdf` (not a whole PDF, or no Vantage seal in it), `key_unknown` (the seal names no key
 * of this deployment), `signature_mismatch` (the signature does not verify with that key: the seal
 * was altered or signed elsewhere), `content_modified` (the signature is good but the document's
 * content hash differs from the signed one). `tsa_invalid` is never produced (no time-stamp
 * authority: `tsa_time` is the server's signing time, `tsa_provider` null). A report signed by a
 * rotated or revoked key still verifies; `signature_key_status` says the key's status.
 */
export async function verifyReport(sql: SqlExecutor, bytes: Uint8Array): Promise<AttestVerifyResponse> {
  const pdf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const base: AttestVerifyResponse = {
    valid: false, report_type: 'observation_only', legal_disclaimer: LEGAL_DISCLAIMER,
    content_hash: contentHash(pdf) ?? `sha256:${createHash('sha256').update(pdf).digest('hex')}`,
    invalid_reason: null, public_key_fingerprint: null, signature_chain: null, signature_key_id: null, signature_key_version: null,
    signature_key_status: null, signed_at: null, tsa_time: null, tsa_provider: null,
  };
  const refuse = (invalid_reason: AttestInvalidReason, more: Partial<AttestVerifyResponse> = {}): AttestVerifyResponse => ({ ...base, ...more, invalid_reason });
  const seal = readSeal(pdf);
  if (!seal || !(await wellFormed(pdf))) return refuse('malformed_pdf');
  const claimed = { signature_key_id: seal.key_id, signature_key_version: seal.key_version, signed_at: new Date(seal.signed_at).toISOString() };
  const key = /^atk_[0-9a-z]{26}$/.test(seal.key_id) ? await findKey(sql, seal.key_id) : null;
  if (!key || key.key_version !== seal.key_version) return refuse('key_unknown', claimed);
  const known = {
    ...claimed, public_key_fingerprint: key.fingerprint, signature_chain: key.public_key_pem, signature_key_status: key.status,
    tsa_time: claimed.signed_at,
  };
  const good = verify(null, signedMessage(seal), createPublicKey(key.public_key_pem), Buffer.from(seal.signature, 'base64url'));
  if (!good) return refuse('signature_mismatch', known);
  if (base.content_hash !== seal.content_hash) return refuse('content_modified', known);
  return { ...base, ...known, valid: true };
}
