import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { newId, type AttestKey, type KeyCeremony } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import type { Sql } from '../db/sql.js';
import type { SqlExecutor } from '../contracts.js';
import { ApiError } from '../errors.js';
import { secretBoxOf } from '../secrets/secret-box.js';
import {
  activeKey, findKey, insertActiveKey, insertCeremony, lockKeyChanges, nextKeyVersion, retireKey, type AttestKeyRow, type KeyCeremonyRow,
} from './keys.db.js';
import { recordStep, reportsSignedBy } from './records.db.js';

/** Who took part in a ceremony: `{identity, role}` (an administrator's e-mail, `system`). */
export type CeremonyActor = { identity: string; role: string };

/** The actor of keys created without an administrator (the first signature of a deployment). */
export const SYSTEM_ACTOR: CeremonyActor = { identity: 'vantage-control-plane', role: 'system' };

/** The secret box binding of a key's private half. */
const aadOf = (key_id: string) => `attest_key:${key_id}`;

/** `sha256:<hex>` of a public key's SubjectPublicKeyInfo DER (docs/api/verdicts.md "Keys"). */
export function publicKeyFingerprint(public_key_pem: string): string {
  const der = createPublicKey(public_key_pem).export({ type: 'spki', format: 'der' });
  return `sha256:${createHash('sha256').update(der).digest('hex')}`;
}

/** A new Ed25519 key (node:crypto), its private half sealed with the secret box under the key's id. */
function newKeyMaterial(config: Config, id: string): { public_key_pem: string; private_key_sealed: string; fingerprint: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const public_key_pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const private_pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  return { public_key_pem, private_key_sealed: secretBoxOf(config).seal(private_pem, aadOf(id)), fingerprint: publicKeyFingerprint(public_key_pem) };
}

/** Create the next active key in `tx` (the caller holds lockKeyChanges), logged as `action` with `actors`. */
async function createKey(config: Config, tx: SqlExecutor, action: KeyCeremonyRow['action'], actors: CeremonyActor[], extra: { evidence_url?: string; notes?: string }): Promise<AttestKeyRow> {
  const id = newId('attest_key');
  const material = newKeyMaterial(config, id);
  const ceremony = await insertCeremony(tx, {
    action, key_id: id, key_version: await nextKeyVersion(tx), actors, evidence_url: extra.evidence_url ?? '', notes: extra.notes ?? '',
  });
  return insertActiveKey(tx, { id, ...material, ceremony_log_id: ceremony.id });
}

/**
 * The active signing key with its private half opened, created on first use (a `root_gen`
 * ceremony by {@link SYSTEM_ACTOR}). Any number of instances: creation is serialised.
 * @throws SecretKeyError (secrets/secret-box.ts) when VANTAGE_SECRETS_KEY is not configured or does not open the key
 */
export async function activeSigningKey(deps: { sql: Sql; config: Config }): Promise<{ key: AttestKeyRow; private_key: KeyObject }> {
  let key = await activeKey(deps.sql);
  if (!key) {
    key = await deps.sql.begin(async (tx) => {
      await lockKeyChanges(tx);
      return (await activeKey(tx)) ?? createKey(deps.config, tx, 'root_gen', [SYSTEM_ACTOR], { notes: 'first signing key of this deployment' });
    });
  }
  const pem = secretBoxOf(deps.config).open(key.private_key_sealed, aadOf(key.id));
  return { key, private_key: createPrivateKey(pem) };
}

/**
 * Rotate (docs/api/verdicts.md "Key ceremonies"): the active key becomes `rotated` (its public
 * key stays readable, its reports keep verifying) and a new key version becomes active, both in
 * one `sign_key_rotate` ceremony naming `actors`. @returns the new key and the ceremony log
 */
export async function rotateKey(deps: { sql: Sql; config: Config }, actors: CeremonyActor[], extra: { evidence_url?: string; notes?: string }): Promise<{ key: AttestKeyRow; ceremony_log_id: string }> {
  return deps.sql.begin(async (tx) => {
    await lockKeyChanges(tx);
    const old = await activeKey(tx, true);
    if (old) await retireKey(tx, old.id, 'rotated');
    const key = await createKey(deps.config, tx, old ? 'sign_key_rotate' : 'root_gen', actors, extra);
    return { key, ceremony_log_id: key.ceremony_log_id };
  });
}

/**
 * Emergency revocation of key `key_id` (active or rotated): it becomes `revoked`, an
 * `emergency_revoke` ceremony names `actors`, every report it signed gets a `revoked` attestation
 * record, and when it was the active key a new version becomes active (`sign_key_rotate`).
 * @returns the revoked key and its ceremony log
 * @throws ApiError NOT_FOUND for an unknown key; CONFLICT when already revoked
 */
export async function revokeKey(deps: { sql: Sql; config: Config }, key_id: string, actors: CeremonyActor[], extra: { evidence_url?: string; notes?: string }): Promise<{ key: AttestKeyRow; ceremony: KeyCeremonyRow }> {
  return deps.sql.begin(async (tx) => {
    await lockKeyChanges(tx);
    const before = await findKey(tx, key_id);
    if (!before) throw new ApiError('NOT_FOUND', 'no attestation key with this id');
    const key = await retireKey(tx, key_id, 'revoked');
    if (!key) throw new ApiError('CONFLICT', 'this attestation key is already revoked');
    const ceremony = await insertCeremony(tx, { action: 'emergency_revoke', key_id, key_version: key.key_version, actors, evidence_url: extra.evidence_url ?? '', notes: extra.notes ?? '' });
    for (const report_id of await reportsSignedBy(tx, key_id)) {
      await recordStep(tx, { report_id, action: 'revoked', status: 'success', retry_count: 0, key_id, external_id: ceremony.id, idempotency_key: `${report_id}:revoked:${key_id}`, error_detail: null });
    }
    if (before.status === 'active') await createKey(deps.config, tx, 'sign_key_rotate', actors, { notes: `replaces revoked key version ${key.key_version}` });
    return { key, ceremony };
  });
}

/** A key as the API shows it (AttestKeyResponse). */
export function toAttestKey(row: AttestKeyRow): AttestKey {
  return {
    key_id: row.id, key_version: row.key_version, algorithm: row.algorithm, public_key_pem: row.public_key_pem, public_key_fingerprint: row.fingerprint,
    status: row.status, ceremony_log_id: row.ceremony_log_id, created_at: row.created_at.toISOString(),
    rotated_at: row.rotated_at?.toISOString() ?? null, revoked_at: row.revoked_at?.toISOString() ?? null,
  };
}

/** A ceremony log as the API shows it (KeyCeremonyLog). */
export function toKeyCeremony(row: KeyCeremonyRow): KeyCeremony {
  return { ...row, created_at: row.created_at.toISOString() };
}
