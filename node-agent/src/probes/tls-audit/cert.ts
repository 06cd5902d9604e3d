import { X509Certificate } from 'node:crypto';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import { Certificate } from '@peculiar/asn1-x509';
import type { SslChainCert } from '@vantage/shared-protocol';

/*
 * What the SSL audit reads from each certificate (docs/api/lookups.md "SSL audit"):
 * node's X509Certificate for names, dates, key and fingerprint, the DER structure (RFC 5280) for
 * the signature algorithm and the SCT list extension (RFC 6962 section 3.3).
 */

/** Signature algorithm OIDs (RFC 3279, 4055, 5758, 8410) → their usual names. */
const SIGNATURE_ALGORITHMS: Record<string, string> = {
  '1.2.840.113549.1.1.4': 'md5WithRSAEncryption', '1.2.840.113549.1.1.5': 'sha1WithRSAEncryption',
  '1.2.840.113549.1.1.10': 'rsassaPss', '1.2.840.113549.1.1.11': 'sha256WithRSAEncryption',
  '1.2.840.113549.1.1.12': 'sha384WithRSAEncryption', '1.2.840.113549.1.1.13': 'sha512WithRSAEncryption',
  '1.2.840.10045.4.1': 'ecdsa-with-SHA1', '1.2.840.10045.4.3.2': 'ecdsa-with-SHA256',
  '1.2.840.10045.4.3.3': 'ecdsa-with-SHA384', '1.2.840.10045.4.3.4': 'ecdsa-with-SHA512',
  '1.3.101.112': 'ED25519', '1.3.101.113': 'ED448',
};

/** Key sizes of named elliptic curves, bits. */
const CURVE_BITS: Record<string, number> = { prime256v1: 256, secp384r1: 384, secp521r1: 521, secp256k1: 256 };

/** The embedded SCT list extension of a certificate (RFC 6962 section 3.3). */
const SCT_LIST_OID = '1.3.6.1.4.1.11129.2.4.2';

/** `C=US\nO=Example\nCN=x` (node's form) → `C=US, O=Example, CN=x`. */
const oneLine = (name: string): string => name.split('\n').filter(Boolean).join(', ');

/** A certificate of the audited chain with the fields of its `chain[]` entry and what the rubric needs. */
export interface AuditedCert {
  x509: X509Certificate;
  fields: SslChainCert;
  /** DNS names and IP addresses of the subjectAltName extension. */
  san: string[];
  /** SCTs in the certificate's SCT list extension (0 without it). */
  sct_count: number;
}

/**
 * Count the SCTs of an RFC 6962 SignedCertificateTimestampList (TLS encoding: a 2-byte length,
 * then each SCT with its own 2-byte length). @throws when the lengths do not add up
 */
export function countScts(list: Uint8Array): number {
  const view = Buffer.from(list);
  if (view.length < 2 || view.readUInt16BE(0) !== view.length - 2) throw new Error('SCT list length does not match its contents');
  let count = 0;
  for (let at = 2; at < view.length; count++) {
    if (at + 2 > view.length) throw new Error('truncated SCT list');
    at += 2 + view.readUInt16BE(at);
    if (at > view.length) throw new Error('truncated SCT list');
  }
  return count;
}

/** Read one DER certificate. @throws when it is not a certificate */
export function auditCert(der: Buffer): AuditedCert {
  const x509 = new X509Certificate(der);
  const asn = AsnConvert.parse(der, Certificate);
  const sct_ext = asn.tbsCertificate.extensions?.find((e) => e.extnID === SCT_LIST_OID);
  let sct_count = 0;
  if (sct_ext) {
    try {
      sct_count = countScts(new Uint8Array(AsnConvert.parse(sct_ext.extnValue.buffer, OctetString).buffer));
    } catch {
      sct_count = 0;
    }
  }
  const key = x509.publicKey;
  const details = key.asymmetricKeyDetails ?? {};
  const type = key.asymmetricKeyType ?? 'unknown';
  const bits = details.modulusLength ?? (details.namedCurve ? CURVE_BITS[details.namedCurve] : undefined) ?? ({ ed25519: 256, ed448: 456, x25519: 256 } as Record<string, number>)[type] ?? 0;
  const oid = asn.signatureAlgorithm.algorithm;
  return {
    x509, sct_count,
    san: (x509.subjectAltName ?? '').split(/,\s*/).map((s) => /^(?:DNS|IP Address):(.+)$/.exec(s)?.[1]?.toLowerCase()).filter((s): s is string => Boolean(s)),
    fields: {
      subject: oneLine(x509.subject), issuer: oneLine(x509.issuer),
      not_before: new Date(x509.validFrom).toISOString(), not_after: new Date(x509.validTo).toISOString(),
      signature_algorithm: SIGNATURE_ALGORITHMS[oid] ?? oid,
      public_key_algorithm: type, public_key_bits: bits,
      serial_number: x509.serialNumber.toUpperCase(), fingerprint_sha256: x509.fingerprint256, is_ca: x509.ca,
    },
  };
}
