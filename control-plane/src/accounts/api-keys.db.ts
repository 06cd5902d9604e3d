import type { Sql } from '../db/sql.js';
import { standingColumns, type StandingFields } from './caller-standing.db.js';

/** Kind of a stored credential: account API key (`sk_live_`/`sk_test_`) or PAT (`svc_pat_`). */
export type AccessKeyKind = 'api_key' | 'pat';

/** An access_keys row (API key fields of docs/api/accounts.md plus the hash and revocation time). */
export interface AccessKeyRow {
  id: string;
  kind: AccessKeyKind;
  user_id: string;
  name: string;
  key_hash: string;
  key_prefix: string;
  type: 'production' | 'test';
  scopes: string[];
  /** Origins (scheme://host[:port], lower case) the key is accepted from; [] = any. */
  allowed_origins: string[];
  /** A workspace token's team; null for account keys and PATs. */
  team_id: string | null;
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

/**
 * Store a new key (only its sha256 hash) valid until `expires_at` when given, else for
 * `expires_days` days from now, but never past `not_after` when given (the expiry of the key that
 * creates it).
 */
export async function insertAccessKey(
  sql: Sql,
  k: {
    id: string; kind: AccessKeyKind; user_id: string; name: string; key_hash: string; key_prefix: string;
    type: 'production' | 'test'; scopes: string[]; expires_days: number; expires_at?: Date | null; not_after?: Date | null;
    allowed_origins?: string[]; team_id?: string | null;
  },
): Promise<AccessKeyRow> {
  // LEAST ignores a NULL not_after.
  const rows = await sql<AccessKeyRow[]>`
    INSERT INTO access_keys (id, kind, user_id, name, key_hash, key_prefix, type, scopes, allowed_origins, team_id, expires_at)
    VALUES (${k.id}, ${k.kind}, ${k.user_id}, ${k.name}, ${k.key_hash}, ${k.key_prefix}, ${k.type},
            ${k.scopes}, ${k.allowed_origins ?? []}::text[], ${k.team_id ?? null},
            LEAST(coalesce(${k.expires_at ?? null}::timestamptz, now() + make_interval(days => ${k.expires_days})), ${k.not_after ?? null}::timestamptz))
    RETURNING *`;
  return rows[0]!;
}

/**
 * The key whose hash is `key_hash` (revoked and expired ones included), or null; `owner_active`
 * is false when an administrator disabled its account; with its owner's standing
 * (caller-standing.db.ts), all in one read (every request with a key asks it).
 */
export async function findAccessKeyByHash(sql: Sql, key_hash: string): Promise<(AccessKeyRow & StandingFields & { expired: boolean; owner_active: boolean }) | null> {
  const rows = await sql<(AccessKeyRow & StandingFields & { expired: boolean; owner_active: boolean })[]>`
    SELECT k.*, (k.expires_at IS NOT NULL AND k.expires_at <= now()) AS expired, (u.status = 'active') AS owner_active, ${standingColumns(sql)}
    FROM access_keys k JOIN users u ON u.id = k.user_id WHERE k.key_hash = ${key_hash}`;
  return rows[0] ?? null;
}

/** Record use of a key (callers throttle this; it is a write). */
export async function touchAccessKey(sql: Sql, id: string): Promise<void> {
  await sql`UPDATE access_keys SET last_used_at = now() WHERE id = ${id}`;
}

/**
 * One page of a user's keys of `kind`, newest first, and the total count; `team_only` narrows
 * them to one team's workspace tokens (what a workspace token itself sees).
 * @param limit 1-100, offset >= 0 (docs/api/conventions.md `{api_keys[], total, limit, offset}`)
 */
export async function listAccessKeys(
  sql: Sql, user_id: string, kind: AccessKeyKind, limit: number, offset: number, team_only: string | null = null,
): Promise<{ rows: AccessKeyRow[]; total: number }> {
  const team = team_only === null ? sql`` : sql`AND team_id = ${team_only}`;
  const rows = await sql<AccessKeyRow[]>`
    SELECT * FROM access_keys WHERE user_id = ${user_id} AND kind = ${kind} ${team}
    ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}`;
  const [count] = await sql<{ total: number }[]>`
    SELECT count(*)::int AS total FROM access_keys WHERE user_id = ${user_id} AND kind = ${kind} ${team}`;
  return { rows, total: count?.total ?? 0 };
}

/** The API key `id` (any owner; revoked ones included), or null: for the team admin check of a revoke. */
export async function findApiKey(sql: Sql, id: string): Promise<AccessKeyRow | null> {
  const rows = await sql<AccessKeyRow[]>`SELECT * FROM access_keys WHERE id = ${id} AND kind = 'api_key'`;
  return rows[0] ?? null;
}

/** Revoke key `id` whoever created it (the caller checked the right to); null when there is none. */
export async function revokeAccessKeyById(sql: Sql, id: string): Promise<AccessKeyRow | null> {
  const rows = await sql<AccessKeyRow[]>`
    UPDATE access_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = ${id} RETURNING *`;
  return rows[0] ?? null;
}

/**
 * Revoke a user's key of `kind`. Revoking twice is a no-op that still finds the key.
 * @returns the row, or null when the user has no such key
 */
export async function revokeAccessKey(sql: Sql, user_id: string, kind: AccessKeyKind, id: string): Promise<AccessKeyRow | null> {
  const rows = await sql<AccessKeyRow[]>`
    UPDATE access_keys SET revoked_at = coalesce(revoked_at, now())
    WHERE id = ${id} AND user_id = ${user_id} AND kind = ${kind} RETURNING *`;
  return rows[0] ?? null;
}
