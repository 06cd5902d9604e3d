import { X509Certificate } from 'node:crypto';
import type * as acme from 'acme-client';
import type { Config } from '../config/index.js';
import type { Sql } from '../db/sql.js';
import type { Logger } from '../log.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { acmeClient, acmeLib } from './acme-account.js';
import { txtVisibility } from './authoritative.js';
import { getCertificate, insertCertificate, setCertificateStatus } from './certificates.db.js';
import { getDnsCredential } from './dns-credentials.db.js';
import { changeOrder, type ManualChallenge, type OrderRow } from './orders.db.js';
import { dnsProvider, type DnsProvider } from './providers/dns-provider.js';
import { REVOKE_REASON_CODES, type RevokeReason } from './revoke-reasons.js';

/*
 * One due step of a certificate order (docs/api/certificates.md "Order states"), run by the job
 * that claimed it:
 * - validating: an ACME order for the SANs (RFC 8555 §7.4); per pending authorization, the
 *   DNS-01 TXT value (§8.4) set through the DNS credential, or shown as manual_challenges and
 *   awaited until the owner confirms; in both cases seen on every authoritative server before the
 *   CA is told (§7.5.1); then the authorizations awaited; on to issuing;
 * - issuing: a fresh P-256 key and CSR, finalize (§7.4), the chain downloaded and stored;
 * - revoking: the certificate revoked at the CA (§7.6) with the reason code of RFC 5280 §5.3.1.
 * A step that fails permanently throws OrderFailure; any other error is retried by the job.
 */

/** A failure retrying cannot mend (the CA marked the order or an authorization invalid, a revoked credential). */
export class OrderFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OrderFailure';
  }
}

export type StepConfig = Pick<Config, 'certificates_acme_directory_url' | 'certificates_acme_ca_file' | 'certificates_acme_email' | 'certificates_dns_resolvers'
  | 'certificates_dns_port' | 'certificates_dns_timeout_ms' | 'certificates_propagation_timeout_ms' | 'certificates_cloudflare_api_url' | 'certificates_route53_api_url'>;

/** What a step runs with. */
export interface StepDeps {
  sql: Sql;
  config: StepConfig;
  box: SecretBox;
  log: Logger;
}

/** The text placed in manual_challenges[].message until the owner confirms. */
export const MANUAL_HINT = 'Create this TXT record at your DNS provider, then confirm the order (POST /v1/certificates/orders/{id}/confirm).';

const keyAad = (order_id: number) => `certificate-key:${order_id}`;

/**
 * What the CA said of a refused validation: the failed challenge's error (RFC 8555 §7.1.4, §8:
 * `detail (type)`) when the error carries the authorization as JSON (acme-client's
 * waitForValidStatus does), else the error's message.
 */
export function validationError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const at = message.indexOf('{');
  if (at >= 0) {
    try {
      const authz = JSON.parse(message.slice(at)) as { challenges?: Array<{ error?: { type?: string; detail?: string } }> };
      const e = authz.challenges?.find((c) => c.error)?.error;
      if (e) return `${e.detail ?? 'no detail given'} (${e.type ?? 'no type given'})`;
    } catch {
      // not an authorization: the message as it is
    }
  }
  return message;
}
const problem = (x: unknown) => {
  const e = x as { detail?: string; type?: string } | undefined;
  return e?.detail ?? e?.type ?? 'no detail given';
};

/** The provider of the order's DNS credential. @throws OrderFailure when it was revoked or removed */
async function providerOf(deps: StepDeps, order: OrderRow): Promise<DnsProvider> {
  const cred = order.dns_credential_id === null ? null : await getDnsCredential(deps.sql, order.dns_credential_id);
  if (!cred || cred.revoked_at) throw new OrderFailure(`DNS credential ${order.dns_credential_id} is revoked or gone`);
  return dnsProvider(deps.config, cred.provider, cred.settings, deps.box.open(cred.secret_sealed, `dns-credential:${cred.id}`));
}

/** Wait (bounded by certificates_propagation_timeout_ms) until every record is on every authoritative server. @returns the last fault, or null */
async function awaitVisible(deps: StepDeps, records: ManualChallenge[]): Promise<string | null> {
  const until = Date.now() + deps.config.certificates_propagation_timeout_ms;
  for (;;) {
    const faults = (await Promise.all(records.map((r) => txtVisibility(deps.config, r.fqdn, r.value)))).filter((f) => f !== null);
    if (faults.length === 0) return null;
    if (Date.now() >= until) return faults[0]!;
    await new Promise((r) => setTimeout(r, 2000));
  }
}

interface Pending { authz: acme.Authorization; challenge: acme.Authorization['challenges'][number]; fqdn: string; value: string }

/** validating → issuing (or back to waiting for the owner on manual DNS). @returns the order after the step */
async function validate(deps: StepDeps, client: acme.Client, order: OrderRow): Promise<OrderRow> {
  let acmeOrder: acme.Order;
  if (!order.acme_order_url) {
    acmeOrder = await client.createOrder({ identifiers: order.sans.map((value) => ({ type: 'dns', value })) });
    order = await changeOrder(deps.sql, order.id, { acme_order_url: acmeOrder.url }, 'acme_order_created');
  } else {
    acmeOrder = await client.getOrder({ url: order.acme_order_url } as acme.Order);
  }
  if (acmeOrder.status === 'invalid') throw new OrderFailure(`the CA marked the order invalid: ${problem(acmeOrder.error)}`);
  if (acmeOrder.status === 'pending') {
    const pending: Pending[] = [];
    for (const authz of await client.getAuthorizations(acmeOrder)) {
      if (authz.status === 'valid') continue;
      if (authz.status !== 'pending') throw new OrderFailure(`authorization of ${authz.identifier.value} is ${authz.status}`);
      const challenge = authz.challenges.find((c) => c.type === 'dns-01');
      if (!challenge) throw new OrderFailure(`the CA offers no dns-01 challenge for ${authz.identifier.value}`);
      pending.push({ authz, challenge, fqdn: `_acme-challenge.${authz.identifier.value}`, value: await client.getChallengeKeyAuthorization(challenge) });
    }
    const records = pending.map((p) => ({ fqdn: p.fqdn, value: p.value, message: MANUAL_HINT }));
    let provider: DnsProvider | null = null;
    if (order.challenge_type === 'manual-dns') {
      // The same records in any order: the CA may list the authorizations in another order each
      // time it is asked (a wildcard and its base name share one fqdn with two values).
      const key = (r: { fqdn: string; value: string }) => `${r.fqdn}\n${r.value}`;
      const given = new Set(order.manual_challenges.map(key));
      const same = records.length === order.manual_challenges.length && given.size === records.length && records.every((r) => given.has(key(r)));
      if (!order.manual_confirmed || !same) {
        if (same) return changeOrder(deps.sql, order.id, { due_at: null, lease_until: null }, 'awaiting_confirmation');
        return changeOrder(deps.sql, order.id, { manual_challenges: records, manual_confirmed: false, due_at: null, lease_until: null }, 'manual_challenges_ready', `${records.length} TXT record(s)`);
      }
      const faults = await Promise.all(records.map((r) => txtVisibility(deps.config, r.fqdn, r.value)));
      if (faults.some((f) => f !== null)) {
        const shown = records.map((r, i) => ({ ...r, message: faults[i] ?? null }));
        return changeOrder(deps.sql, order.id, { manual_challenges: shown, manual_confirmed: false, due_at: null, lease_until: null }, 'manual_challenges_not_visible', faults.find((f) => f !== null)!);
      }
      order = await changeOrder(deps.sql, order.id, { manual_challenges: records.map((r) => ({ ...r, message: null })) }, 'txt_records_visible');
    } else {
      provider = await providerOf(deps, order);
      for (const p of pending) await provider.present(p.fqdn, p.value);
      order = await changeOrder(deps.sql, order.id, {}, 'txt_records_set', pending.map((p) => p.fqdn).join(' '));
      const fault = await awaitVisible(deps, records);
      if (fault) throw new Error(fault);
      order = await changeOrder(deps.sql, order.id, {}, 'txt_records_visible');
    }
    try {
      for (const p of pending) await client.completeChallenge(p.challenge);
      order = await changeOrder(deps.sql, order.id, {}, 'challenges_submitted');
      for (const p of pending) {
        try {
          await client.waitForValidStatus(p.authz);
        } catch (err) {
          throw new OrderFailure(`validation of ${p.authz.identifier.value} failed: ${validationError(err)}`);
        }
      }
    } finally {
      if (provider) for (const p of pending) await provider.cleanup(p.fqdn, p.value).catch((err) => deps.log.warn({ err, order_id: order.id }, 'TXT record cleanup failed'));
    }
    acmeOrder = await client.getOrder(acmeOrder);
  }
  return changeOrder(deps.sql, order.id, { status: 'issuing', attempt: 0 }, 'validated');
}

/** The leaf certificate's stored fields (the chain's first certificate: X509Certificate reads the first PEM block). */
export function certificateFields(chain_pem: string): { issuer: string; serial_hex: string; fingerprint_sha256: string; sans: string[]; not_before: Date; not_after: Date } {
  const leaf = new X509Certificate(chain_pem);
  return {
    issuer: leaf.issuer.replace(/\n/g, ', '),
    serial_hex: leaf.serialNumber.toLowerCase(),
    fingerprint_sha256: leaf.fingerprint256.replace(/:/g, '').toLowerCase(),
    sans: (leaf.subjectAltName ?? '').split(', ').filter((s) => s.startsWith('DNS:')).map((s) => s.slice(4)),
    not_before: new Date(leaf.validFrom),
    not_after: new Date(leaf.validTo),
  };
}

/** issuing → issued: finalize with a new key's CSR, store the chain and the sealed key. */
async function issue(deps: StepDeps, client: acme.Client, order: OrderRow): Promise<OrderRow> {
  let acmeOrder = await client.getOrder({ url: order.acme_order_url } as acme.Order);
  if (acmeOrder.status !== 'ready') throw new OrderFailure(`the CA order is ${acmeOrder.status}, not ready to finalize; retry the order`);
  const lib = await acmeLib();
  const [key, csr] = await lib.crypto.createCsr({ commonName: order.common_name ?? order.sans[0]!, altNames: order.sans }, await lib.crypto.createPrivateEcdsaKey('P-256'));
  acmeOrder = await client.finalizeOrder(acmeOrder, csr);
  acmeOrder = await client.waitForValidStatus(acmeOrder);
  const chain_pem = await client.getCertificate(acmeOrder);
  return deps.sql.begin(async (tx) => {
    const cert = await insertCertificate(tx, { user_id: order.user_id, team_id: order.team_id, order_id: order.id, ...certificateFields(chain_pem), chain_pem, key_sealed: deps.box.seal(key.toString(), keyAad(order.id)) });
    return changeOrder(tx, order.id, { status: 'issued', cert_id: cert.id, finalized_at: new Date(), due_at: null, lease_until: null, last_error: null, attempt: 0 }, 'issued', `serial ${cert.serial_hex}`);
  });
}

/** revoking → revoked: the certificate revoked at the CA with its reason. */
async function revoke(deps: StepDeps, client: acme.Client, order: OrderRow): Promise<OrderRow> {
  const cert = order.cert_id === null ? null : await getCertificate(deps.sql, order.cert_id);
  if (!cert) throw new OrderFailure('the order has no certificate to revoke');
  const reason = (cert.revoke_reason ?? 'unspecified') as RevokeReason;
  try {
    await client.revokeCertificate((await acmeLib()).crypto.splitPemChain(cert.chain_pem)[0]!, { reason: REVOKE_REASON_CODES[reason] });
  } catch (err) {
    // RFC 8555 §7.6: a certificate the CA has already revoked answers urn:ietf:params:acme:error:alreadyRevoked.
    if (!/alreadyRevoked|already revoked/i.test((err as Error).message)) throw err;
  }
  return deps.sql.begin(async (tx) => {
    await setCertificateStatus(tx, cert.id, { status: 'revoked', revoked_at: new Date() });
    return changeOrder(tx, order.id, { status: 'revoked', due_at: null, lease_until: null, last_error: null, attempt: 0 }, 'revoked', reason);
  });
}

/** Open a certificate's private key (PEM). */
export function openCertificateKey(box: SecretBox, order_id: number, key_sealed: string): string {
  return box.open(key_sealed, keyAad(order_id));
}

/**
 * Run the due step of `order` (claimed by the caller) and every step that follows at once.
 * @returns the order after it
 * @throws OrderFailure (permanent) or any other Error (the job retries)
 */
export async function runStep(deps: StepDeps, order: OrderRow): Promise<OrderRow> {
  const client = await acmeClient(deps);
  if (order.status === 'validating') order = await validate(deps, client, order);
  if (order.status === 'issuing') order = await issue(deps, client, order);
  else if (order.status === 'revoking') order = await revoke(deps, client, order);
  return order;
}
