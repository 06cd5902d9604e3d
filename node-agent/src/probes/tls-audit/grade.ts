import type { SslAudit, SslChainCert } from '@vantage/shared-protocol';

/*
 * The SSL audit's grade and warnings: the rubric of docs/api/lookups.md "Grade",
 * modelled on SSL Labs' SSL Server Rating Guide (protocol support, key exchange, cipher strength,
 * certificate and chain) with its later caps (TLS 1.0/1.1 → B, no forward secrecy → B, A+ needs
 * HSTS of at least 180 days).
 */

/** HSTS max-age an A+ needs, seconds (180 days, as SSL Labs). */
export const HSTS_A_PLUS_S = 15_552_000;
/** A certificate expiring in fewer days than this gets a warning. */
export const EXPIRY_WARNING_DAYS = 30;

/** What the rubric judges. */
export interface GradeInput {
  valid: boolean;
  validation_error: string | null;
  days_until_expiry: number;
  tls_versions: SslAudit['tls_versions'];
  /** Negotiated cipher suite of the default handshake (OpenSSL name) and its protocol. */
  cipher_suite: string;
  protocol: string;
  /** Leaf first. */
  chain: SslChainCert[];
  ocsp_status: SslAudit['ocsp_status'];
  hsts_max_age_s: number | null;
}

const ORDER = ['A+', 'A', 'A-', 'B', 'C', 'F'] as const;
type Grade = (typeof ORDER)[number];
const worse = (a: Grade, b: Grade): Grade => (ORDER.indexOf(a) >= ORDER.indexOf(b) ? a : b);

/** Cipher suites no client should accept (null, export, anonymous, RC4, single DES, MD5 MACs). */
const BROKEN_CIPHER = /NULL|EXP|ADH|AECDH|anon|RC4|(?<!3)DES-CBC(?!3)|MD5/i;

/**
 * Grade `input` (A+ best, F worst) and list why it is not better, plus warnings that do not
 * change the grade (expiry within EXPIRY_WARNING_DAYS, no OCSP stapling, no HSTS).
 */
export function gradeAudit(input: GradeInput): { grade: Grade; warnings: string[] } {
  const warnings: string[] = [];
  let grade: Grade = 'A';
  const cap = (g: Grade, why: string) => {
    grade = worse(grade, g);
    warnings.push(why);
  };
  const supported = new Set(input.tls_versions.filter((v) => v.supported).map((v) => v.version));
  const leaf = input.chain[0];

  if (!input.valid) cap('F', `certificate not trusted: ${input.validation_error ?? 'verification failed'}`);
  if (input.ocsp_status === 'revoked') cap('F', 'the stapled OCSP response says the certificate is revoked');
  if (BROKEN_CIPHER.test(input.cipher_suite)) cap('F', `the default handshake negotiated a broken cipher suite (${input.cipher_suite})`);
  if (leaf && leaf.public_key_algorithm === 'rsa' && leaf.public_key_bits < 1024) cap('F', `RSA key of ${leaf.public_key_bits} bits`);
  for (const [i, c] of input.chain.entries()) {
    const self_signed = c.subject === c.issuer;
    if (!self_signed && /md5|sha1/i.test(c.signature_algorithm)) cap('F', `${i === 0 ? 'the leaf' : `chain certificate ${i}`} is signed with ${c.signature_algorithm}`);
  }
  if (!supported.has('TLSv1.2') && !supported.has('TLSv1.3')) cap('C', 'neither TLS 1.2 nor TLS 1.3 is supported');
  if (/3DES|DES-CBC3/i.test(input.cipher_suite)) cap('C', `the default handshake negotiated 3DES (${input.cipher_suite})`);
  if (supported.has('TLSv1')) cap('B', 'TLS 1.0 is supported');
  if (supported.has('TLSv1.1')) cap('B', 'TLS 1.1 is supported');
  if (leaf && leaf.public_key_algorithm === 'rsa' && leaf.public_key_bits >= 1024 && leaf.public_key_bits < 2048) cap('B', `RSA key of ${leaf.public_key_bits} bits (2048 or more expected)`);
  if (leaf && leaf.public_key_algorithm === 'ec' && leaf.public_key_bits < 256) cap('B', `EC key of ${leaf.public_key_bits} bits`);
  if (input.protocol !== 'TLSv1.3' && !/^(ECDHE|DHE|EDH)-/.test(input.cipher_suite)) cap('B', `no forward secrecy in the default handshake (${input.cipher_suite})`);
  if (!supported.has('TLSv1.3')) cap('A-', 'TLS 1.3 is not supported');

  if (input.days_until_expiry >= 0 && input.days_until_expiry < EXPIRY_WARNING_DAYS) warnings.push(`the certificate expires in ${input.days_until_expiry} days`);
  if (input.ocsp_status === 'none') warnings.push('no OCSP response stapled');
  if (input.hsts_max_age_s === null) warnings.push('no Strict-Transport-Security header');
  else if (input.hsts_max_age_s < HSTS_A_PLUS_S) warnings.push(`HSTS max-age ${input.hsts_max_age_s} s is under 180 days`);
  if (grade === 'A' && input.hsts_max_age_s !== null && input.hsts_max_age_s >= HSTS_A_PLUS_S) grade = 'A+';
  return { grade, warnings };
}
