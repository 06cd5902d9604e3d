import { createHash } from 'node:crypto';

/*
 * Where a report's signature lives in its PDF (docs/api/verdicts.md "How a report is signed").
 * The document's Info dictionary holds `/VantageSeal (<SEAL_LENGTH characters>)`. A document is
 * written with the value as SEAL_LENGTH `0` characters (the placeholder); its content hash is the
 * SHA-256 of the whole file with the value in that placeholder state, so the hash covers every
 * other byte. The placeholder is then overwritten in place (same length, nothing else moves) by
 *   vseal1;<key_id>;<key_version>;<signed_at>;<content_hash>;<signature>
 * padded with spaces, where `signature` is base64url Ed25519 over {@link signedMessage}.
 */

/** The Info dictionary key holding the seal. */
export const SEAL_KEY = 'VantageSeal';
/** Characters of the seal value (placeholder and sealed). */
export const SEAL_LENGTH = 400;
/** The placeholder value a document is written with. */
export const SEAL_PLACEHOLDER = '0'.repeat(SEAL_LENGTH);

const MARKER = Buffer.from(`/${SEAL_KEY} (`, 'latin1');

/** A seal as read from a document. */
export interface Seal {
  key_id: string;
  key_version: number;
  signed_at: string;
  content_hash: string;
  signature: string;
}

/** The bytes an Ed25519 signature covers: a domain tag, the content hash, the key and the signing time. */
export function signedMessage(s: Omit<Seal, 'signature'>): Buffer {
  return Buffer.from(`vantage-attestation-v1\n${s.content_hash}\n${s.key_id}\n${s.key_version}\n${s.signed_at}`, 'utf8');
}

/** Offset of the seal value in `pdf`, or null when the marker is absent, repeated, or its value is not SEAL_LENGTH characters closed by `)`. */
export function sealOffset(pdf: Uint8Array): number | null {
  const buf = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
  const at = buf.indexOf(MARKER);
  if (at < 0 || buf.indexOf(MARKER, at + 1) >= 0) return null;
  const start = at + MARKER.length;
  if (start + SEAL_LENGTH >= buf.length || buf[start + SEAL_LENGTH] !== 0x29) return null;
  return start;
}

/** `sha256:<hex>` of `pdf` with its seal value in placeholder state (the content hash); null without a seal slot. */
export function contentHash(pdf: Uint8Array): string | null {
  const start = sealOffset(pdf);
  if (start === null) return null;
  const copy = Buffer.from(pdf);
  copy.write(SEAL_PLACEHOLDER, start, 'latin1');
  return `sha256:${createHash('sha256').update(copy).digest('hex')}`;
}

/** `pdf` with its placeholder replaced by `seal` (a new buffer). @throws Error when there is no slot or the seal does not fit */
export function writeSeal(pdf: Uint8Array, seal: Seal): Buffer {
  const start = sealOffset(pdf);
  if (start === null) throw new Error('the document has no seal slot');
  const text = ['vseal1', seal.key_id, seal.key_version, seal.signed_at, seal.content_hash, seal.signature].join(';');
  if (text.length > SEAL_LENGTH || /[()\\]/.test(text)) throw new Error('the seal does not fit its slot');
  const out = Buffer.from(pdf);
  out.write(text.padEnd(SEAL_LENGTH, ' '), start, 'latin1');
  return out;
}

/** The seal of `pdf`: null when there is no slot, the slot holds the placeholder, or its text is not a seal. */
export function readSeal(pdf: Uint8Array): Seal | null {
  const start = sealOffset(pdf);
  if (start === null) return null;
  const text = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength).toString('latin1', start, start + SEAL_LENGTH).trimEnd();
  const parts = text.split(';');
  if (parts.length !== 6 || parts[0] !== 'vseal1') return null;
  const [, key_id, version, signed_at, content_hash, signature] = parts as [string, string, string, string, string, string];
  if (!/^[1-9]\d{0,8}$/.test(version) || !/^sha256:[0-9a-f]{64}$/.test(content_hash) || !/^[A-Za-z0-9_-]{86}$/.test(signature) || Number.isNaN(Date.parse(signed_at))) return null;
  return { key_id, key_version: Number(version), signed_at, content_hash, signature };
}
