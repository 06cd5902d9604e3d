import t from 'tap';
import type { SslChainCert } from '@vantage/shared-protocol';
import { gradeAudit, type GradeInput } from './grade.js';

/* The grade rubric of docs/api/lookups.md "Grade", one finding at a time. */

const cert = (over: Partial<SslChainCert> = {}): SslChainCert => ({
  subject: 'CN=example.test', issuer: 'CN=Test CA', not_before: '2026-01-01T00:00:00.000Z', not_after: '2027-01-01T00:00:00.000Z',
  signature_algorithm: 'sha256WithRSAEncryption', public_key_algorithm: 'rsa', public_key_bits: 2048, serial_number: '01', fingerprint_sha256: 'AA', is_ca: false, ...over,
});
const versions = (...on: string[]) => (['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'] as const).map((version) => ({ version, supported: on.includes(version) }));
const BEST: GradeInput = {
  valid: true, validation_error: null, days_until_expiry: 200, tls_versions: versions('TLSv1.2', 'TLSv1.3'), cipher_suite: 'TLS_AES_128_GCM_SHA256',
  protocol: 'TLSv1.3', chain: [cert()], ocsp_status: 'good', hsts_max_age_s: 31_536_000,
};

const CASES: Array<[string, Partial<GradeInput>, string]> = [
  ['everything right with long HSTS', {}, 'A+'],
  ['no HSTS', { hsts_max_age_s: null }, 'A'],
  ['short HSTS', { hsts_max_age_s: 86_400 }, 'A'],
  ['no TLS 1.3', { tls_versions: versions('TLSv1.2'), protocol: 'TLSv1.2', cipher_suite: 'ECDHE-RSA-AES128-GCM-SHA256' }, 'A-'],
  ['TLS 1.0 offered', { tls_versions: versions('TLSv1', 'TLSv1.2', 'TLSv1.3') }, 'B'],
  ['no forward secrecy', { tls_versions: versions('TLSv1.2'), protocol: 'TLSv1.2', cipher_suite: 'AES128-GCM-SHA256' }, 'B'],
  ['RSA 1024', { chain: [cert({ public_key_bits: 1024 })] }, 'B'],
  ['only TLS 1.0', { tls_versions: versions('TLSv1'), protocol: 'TLSv1', cipher_suite: 'ECDHE-RSA-AES128-SHA' }, 'C'],
  ['3DES', { protocol: 'TLSv1.2', cipher_suite: 'ECDHE-RSA-DES-CBC3-SHA' }, 'C'],
  ['RC4', { protocol: 'TLSv1.2', cipher_suite: 'ECDHE-RSA-RC4-SHA' }, 'F'],
  ['not valid', { valid: false, validation_error: 'CERT_HAS_EXPIRED' }, 'F'],
  ['revoked', { ocsp_status: 'revoked' }, 'F'],
  ['RSA 512', { chain: [cert({ public_key_bits: 512 })] }, 'F'],
  ['SHA-1 signed leaf', { chain: [cert({ signature_algorithm: 'sha1WithRSAEncryption' })] }, 'F'],
  ['SHA-1 self-signed root only', { chain: [cert(), cert({ subject: 'CN=Root', issuer: 'CN=Root', signature_algorithm: 'sha1WithRSAEncryption', is_ca: true })] }, 'A+'],
];

for (const [name, change, grade] of CASES) {
  t.test(name, async (t) => {
    const out = gradeAudit({ ...BEST, ...change });
    t.equal(out.grade, grade, out.warnings.join('; '));
    if (grade !== 'A+') t.ok(out.warnings.length > 0, 'a warning says why');
  });
}

t.test('warnings that do not change the grade', async (t) => {
  const out = gradeAudit({ ...BEST, days_until_expiry: 5, ocsp_status: 'none' });
  t.equal(out.grade, 'A+');
  t.same(out.warnings, ['the certificate expires in 5 days', 'no OCSP response stapled']);
});
