import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SqlExecutor } from '../contracts.js';
import { insertCertificate, type CertificateRow } from './certificates.db.js';
import { certificateFields } from './order-steps.js';
import { insertOrder } from './orders.db.js';

/*
 * Stored certificates for tests that need one without running an ACME issuance: real X.509
 * certificates made by openssl, read by the code that stores issued ones (certificateFields),
 * under an order of their own.
 */

/** A self-signed P-256 certificate for `sans` (the first non-wildcard one as CN), valid `days` from now, as PEM. */
export function makeCertificate(sans: string[], days: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'vantage-cert-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
      '-subj', `/CN=${sans.find((s) => !s.startsWith('*.')) ?? sans[0]}`, '-addext', `subjectAltName=${sans.map((s) => `DNS:${s}`).join(',')}`, '-days', String(days)], { stdio: 'ignore' });
    return readFileSync(join(dir, 'cert.pem'), 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Store a certificate of `sans` valid `days` for `owner`, as an issued manual-dns order would. @returns its row */
export async function storeCertificate(ex: SqlExecutor, owner: { user_id: string; team_id: string | null }, sans: string[], days = 60): Promise<CertificateRow> {
  const order = await insertOrder(ex, { ...owner, ca: 'test', tier: 'dv', challenge_type: 'manual-dns', common_name: sans[0]!, sans, sans_unicode: sans, dns_credential_id: null });
  const chain_pem = makeCertificate(sans, days);
  return insertCertificate(ex, { ...owner, order_id: order.id, ...certificateFields(chain_pem), chain_pem, key_sealed: 'unused' });
}
