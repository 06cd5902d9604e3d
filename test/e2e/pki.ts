import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The e2e test CA and the targets host's certificate (PEM strings). */
export interface TargetsPki {
  ca_cert: string;
  /** Common name of the CA: what the http probe reports as the leaf's `certificate.issuer`. */
  ca_name: string;
  leaf: { cert: string; key: string };
  /** The same names and IPs, signed by the same CA, but expired since yesterday (valid 30 days before): what a forgotten renewal serves. */
  expired_leaf: { cert: string; key: string };
}

export const CA_NAME = 'Vantage E2E Test CA';
const DAY_MS = 86_400_000;

type Generate = (attrs: Array<{ name: string; value: string }>, opts: Record<string, unknown>) => Promise<{ cert: string; private: string }>;

/** selfsigned is a dev dependency of node-agent (not of the test package): load it from there. */
async function loadGenerate(): Promise<Generate> {
  const agentPkg = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'node-agent', 'package.json');
  const mod = (await import(pathToFileURL(createRequire(agentPkg).resolve('selfsigned')).href)) as { generate?: Generate; default?: { generate: Generate } };
  return mod.generate ?? mod.default!.generate;
}

/**
 * A fresh CA (EC P-256, 10 years) and a leaf it signed for `names` (DNS SANs) and `ips` (IP SANs),
 * valid from yesterday for one year, like node-agent/src/probes/test-support/certs.ts. Agents
 * trust the CA through NODE_EXTRA_CA_CERTS, so HTTPS is verified for real (never disabled).
 */
export async function makeTargetsPki(names: string[], ips: string[]): Promise<TargetsPki> {
  const generate = await loadGenerate();
  const now = Date.now();
  const ca = await generate([{ name: 'commonName', value: CA_NAME }], {
    keyType: 'ec', algorithm: 'sha256', notBeforeDate: new Date(now - DAY_MS), notAfterDate: new Date(now + 3650 * DAY_MS),
    extensions: [{ name: 'basicConstraints', cA: true, critical: true }, { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true }],
  });
  const issue = (not_before_ms: number, not_after_ms: number) => generate([{ name: 'commonName', value: names[0] ?? ips[0]! }], {
    keyType: 'ec', algorithm: 'sha256', notBeforeDate: new Date(not_before_ms), notAfterDate: new Date(not_after_ms),
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [...names.map((value) => ({ type: 2, value })), ...ips.map((ip) => ({ type: 7, ip }))] },
    ],
  });
  const [leaf, expired] = await Promise.all([issue(now - DAY_MS, now + 365 * DAY_MS), issue(now - 31 * DAY_MS, now - DAY_MS)]);
  return { ca_cert: ca.cert, ca_name: CA_NAME, leaf: { cert: leaf.cert, key: leaf.private }, expired_leaf: { cert: expired.cert, key: expired.private } };
}
