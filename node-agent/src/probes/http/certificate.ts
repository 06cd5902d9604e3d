import type { PeerCertificate } from 'node:tls';

/** Leaf certificate facts, the shape of shared-protocol `certificateSchema`. */
export interface CertificateFacts {
  /** Subject CN (or the whole subject as `K=V, …` when there is no CN). */
  subject: string;
  /** Issuer CN (same fallback). */
  issuer: string;
  /** ISO 8601 UTC. */
  not_before: string;
  not_after: string;
  /** Whole days from `now` until not_after, rounded down; negative once expired. */
  days_left: number;
  /** subjectAltName entries as `DNS:name` / `IP Address:addr`, as OpenSSL prints them. */
  san: string[];
}

const DAY_MS = 86_400_000;

function nameOf(dn: PeerCertificate['subject'] | undefined): string {
  if (!dn) return '';
  const cn = (dn as unknown as Record<string, string | string[]>).CN;
  if (cn) return Array.isArray(cn) ? cn.join(', ') : cn;
  return Object.entries(dn).map(([k, v]) => `${k}=${Array.isArray(v) ? v.join('+') : v}`).join(', ');
}

function isoOf(openssl: string): string {
  const at = new Date(openssl);
  return Number.isNaN(at.getTime()) ? openssl : at.toISOString();
}

/**
 * Describe a peer certificate from tls.TLSSocket#getPeerCertificate(). `now` (ms since epoch) is
 * a parameter so the arithmetic is testable. Never throws: missing fields become empty strings.
 */
export function certificateFacts(peer: PeerCertificate, now = Date.now()): CertificateFacts {
  const notAfter = new Date(peer.valid_to);
  const days_left = Number.isNaN(notAfter.getTime()) ? 0 : Math.floor((notAfter.getTime() - now) / DAY_MS);
  const san = (peer.subjectaltname ?? '').split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  return {
    subject: nameOf(peer.subject),
    issuer: nameOf(peer.issuer),
    not_before: isoOf(peer.valid_from),
    not_after: isoOf(peer.valid_to),
    days_left,
    san,
  };
}
