import { newId } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';

/*
 * Signing keys and key ceremony logs (0073_verdicts_attestation.sql). Private halves are sealed
 * by the caller (keys.ts); these functions never see them in the clear.
 */

/** An `attest_keys` row. */
export interface AttestKeyRow {
  id: string;
  key_version: number;
  algorithm: string;
  public_key_pem: string;
  private_key_sealed: string;
  fingerprint: string;
  status: 'active' | 'rotated' | 'revoked';
  ceremony_log_id: string;
  created_at: Date;
  rotated_at: Date | null;
  revoked_at: Date | null;
}

/** A `key_ceremonies` row. */
export interface KeyCeremonyRow {
  id: string;
  action: 'root_gen' | 'root_split' | 'sign_key_rotate' | 'emergency_revoke';
  key_id: string | null;
  key_version: number | null;
  actors: Array<{ identity: string; role: string }>;
  evidence_url: string;
  notes: string;
  created_at: Date;
}

/** The active key, or null; `lock` takes the row for update (rotation and revocation). */
export async function activeKey(ex: SqlExecutor, lock = false): Promise<AttestKeyRow | null> {
  const [row] = await ex<AttestKeyRow[]>`SELECT * FROM attest_keys WHERE status = 'active' ${lock ? ex`FOR UPDATE` : ex``}`;
  return row ?? null;
}

/** One key by id (any status), or null. */
export async function findKey(ex: SqlExecutor, id: string): Promise<AttestKeyRow | null> {
  const [row] = await ex<AttestKeyRow[]>`SELECT * FROM attest_keys WHERE id = ${id}`;
  return row ?? null;
}

/** Every key, newest version first. */
export async function listKeys(ex: SqlExecutor): Promise<AttestKeyRow[]> {
  return ex<AttestKeyRow[]>`SELECT * FROM attest_keys ORDER BY key_version DESC`;
}

/** Serialise key changes across instances for the rest of `tx` (transaction advisory lock). */
export async function lockKeyChanges(tx: SqlExecutor): Promise<void> {
  await tx`SELECT pg_advisory_xact_lock(hashtext('vantage.attest_keys'))`;
}

/** Insert a ceremony log; @returns its row. */
export async function insertCeremony(ex: SqlExecutor, c: Omit<KeyCeremonyRow, 'id' | 'created_at'>): Promise<KeyCeremonyRow> {
  const [row] = await ex<KeyCeremonyRow[]>`
    INSERT INTO key_ceremonies (id, action, key_id, key_version, actors, evidence_url, notes)
    VALUES (${newId('key_ceremony')}, ${c.action}, ${c.key_id}, ${c.key_version}, ${ex.json(c.actors as never)}, ${c.evidence_url}, ${c.notes})
    RETURNING *`;
  return row!;
}

/** Insert the active key `id` (its version one above the highest); @returns its row. */
export async function insertActiveKey(ex: SqlExecutor, k: { id: string; public_key_pem: string; private_key_sealed: string; fingerprint: string; ceremony_log_id: string }): Promise<AttestKeyRow> {
  const [row] = await ex<AttestKeyRow[]>`
    INSERT INTO attest_keys (id, key_version, public_key_pem, private_key_sealed, fingerprint, status, ceremony_log_id)
    SELECT ${k.id}, coalesce(max(key_version), 0) + 1, ${k.public_key_pem}, ${k.private_key_sealed}, ${k.fingerprint}, 'active', ${k.ceremony_log_id}
    FROM attest_keys
    RETURNING *`;
  return row!;
}

/** The version the next key will get. */
export async function nextKeyVersion(ex: SqlExecutor): Promise<number> {
  const [row] = await ex<{ v: number }[]>`SELECT coalesce(max(key_version), 0)::int + 1 AS v FROM attest_keys`;
  return row!.v;
}

/** Mark key `id` rotated (from active) or revoked (from active or rotated); @returns the row after, or null when it was not in such a state. */
export async function retireKey(ex: SqlExecutor, id: string, to: 'rotated' | 'revoked'): Promise<AttestKeyRow | null> {
  const [row] = to === 'rotated'
    ? await ex<AttestKeyRow[]>`UPDATE attest_keys SET status = 'rotated', rotated_at = now() WHERE id = ${id} AND status = 'active' RETURNING *`
    : await ex<AttestKeyRow[]>`UPDATE attest_keys SET status = 'revoked', revoked_at = now(), rotated_at = coalesce(rotated_at, now())
        WHERE id = ${id} AND status IN ('active', 'rotated') RETURNING *`;
  return row ?? null;
}

/** Ceremony logs, newest first. */
export async function listCeremonies(ex: SqlExecutor, limit: number, offset: number): Promise<{ rows: KeyCeremonyRow[]; total: number }> {
  const [rows, [count]] = await Promise.all([
    ex<KeyCeremonyRow[]>`SELECT * FROM key_ceremonies ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}`,
    ex<{ n: number }[]>`SELECT count(*)::int AS n FROM key_ceremonies`,
  ]);
  return { rows, total: count!.n };
}
