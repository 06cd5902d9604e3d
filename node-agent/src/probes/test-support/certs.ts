import { generate } from 'selfsigned';

/** A test PKI: a CA and leaf certificates it signed (PEM strings). */
export interface TestPki {
  ca: { cert: string; key: string };
  /** Valid for DNS localhost, IP 127.0.0.1 and ::1, one year. */
  leaf: { cert: string; key: string };
  /** Same names, but expired ten days ago. */
  expired: { cert: string; key: string };
  /** Same names, valid, but expiring in three days and one hour (3 whole days left). */
  expiringSoon: { cert: string; key: string };
  /** Valid dates, but only for `other.test` (identity mismatch for 127.0.0.1 / localhost). */
  wrongName: { cert: string; key: string };
}

const DAY_MS = 86_400_000;

/**
 * Generate a fresh test PKI with `selfsigned` (EC P-256, sha256), so HTTPS tests verify real
 * chains: the probe trusts `ca.cert` through createHttpProbe({ ca }), never by disabling checks.
 */
export async function makeTestPki(): Promise<TestPki> {
  const now = Date.now();
  const ca = await generate([{ name: 'commonName', value: 'Vantage Test CA' }], {
    keyType: 'ec', algorithm: 'sha256', notBeforeDate: new Date(now - DAY_MS), notAfterDate: new Date(now + 3650 * DAY_MS),
    extensions: [{ name: 'basicConstraints', cA: true, critical: true }, { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true }],
  });
  const signer = { key: ca.private, cert: ca.cert };
  const leafFor = async (names: string[], ips: string[], from: Date, to: Date) => {
    const g = await generate([{ name: 'commonName', value: names[0]! }], {
      keyType: 'ec', algorithm: 'sha256', notBeforeDate: from, notAfterDate: to, ca: signer,
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
        { name: 'extKeyUsage', serverAuth: true },
        { name: 'subjectAltName', altNames: [...names.map((value) => ({ type: 2 as const, value })), ...ips.map((ip) => ({ type: 7 as const, ip }))] },
      ],
    });
    return { cert: g.cert, key: g.private };
  };
  return {
    ca: { cert: ca.cert, key: ca.private },
    leaf: await leafFor(['localhost'], ['127.0.0.1', '::1'], new Date(now - DAY_MS), new Date(now + 365 * DAY_MS)),
    expired: await leafFor(['localhost'], ['127.0.0.1', '::1'], new Date(now - 40 * DAY_MS), new Date(now - 10 * DAY_MS)),
    expiringSoon: await leafFor(['localhost'], ['127.0.0.1', '::1'], new Date(now - DAY_MS), new Date(now + 3 * DAY_MS + 3600_000)),
    wrongName: await leafFor(['other.test'], [], new Date(now - DAY_MS), new Date(now + 365 * DAY_MS)),
  };
}
