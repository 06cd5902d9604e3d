import type postgres from 'postgres';
import type { Sql } from './sql.js';

/** An enrollment token row (spec 2.12); `status` is derived: active, used or expired. */
export interface EnrollmentTokenRow {
  id: string;
  user_id: string;
  preview: string;
  label: string | null;
  country_code: string | null;
  declared_province: string | null;
  city_id: number | null;
  operator: string | null;
  status: 'active' | 'used' | 'expired';
  consumed_node_id: string | null;
  created_at: Date;
  expires_at: Date;
}

type Executor = Sql | postgres.TransactionSql<Record<string, never>>;

const COLUMNS = (sql: Executor) => sql`
  id, user_id, preview, label, country_code, declared_province, city_id, operator, consumed_node_id,
  created_at, expires_at,
  CASE WHEN status = 'used' THEN 'used' WHEN expires_at <= now() THEN 'expired' ELSE 'active' END AS status`;

/**
 * Store a new token (only its hash). `ttl_hours` from now sets `expires_at`.
 * @returns the stored row
 */
export async function insertEnrollmentToken(sql: Sql, t: {
  id: string; user_id: string; token_hash: string; preview: string; label: string | null;
  country_code: string | null; declared_province: string | null; city_id: number | null;
  operator: string | null; sponsor_user_id: string | null; ttl_hours: number;
}): Promise<EnrollmentTokenRow> {
  const [row] = await sql<EnrollmentTokenRow[]>`
    INSERT INTO enrollment_tokens (id, user_id, token_hash, preview, label, country_code, declared_province,
      city_id, operator, sponsor_user_id, expires_at)
    VALUES (${t.id}, ${t.user_id}, ${t.token_hash}, ${t.preview}, ${t.label}, ${t.country_code},
      ${t.declared_province}, ${t.city_id}, ${t.operator}, ${t.sponsor_user_id},
      now() + make_interval(hours => ${t.ttl_hours}))
    RETURNING ${COLUMNS(sql)}`;
  return row!;
}

/** The caller's tokens, newest first (spec 2.12 list `{tokens[]}`). */
export async function listEnrollmentTokens(sql: Sql, user_id: string): Promise<EnrollmentTokenRow[]> {
  return sql<EnrollmentTokenRow[]>`
    SELECT ${COLUMNS(sql)} FROM enrollment_tokens WHERE user_id = ${user_id} ORDER BY created_at DESC, id DESC LIMIT 500`;
}

/** Revoke (delete) one of the caller's tokens. @returns false when it is not theirs or does not exist. */
export async function deleteEnrollmentToken(sql: Sql, user_id: string, id: string): Promise<boolean> {
  const rows = await sql`DELETE FROM enrollment_tokens WHERE id = ${id} AND user_id = ${user_id} RETURNING id`;
  return rows.length > 0;
}

/** How long a used token may re-enroll the node it created while that node never said hello. */
export const ENROLLMENT_RETRY_WINDOW_S = 900;

/**
 * A token by hash that may enroll now (upgrade authentication): active and unexpired, or used
 * within {@link ENROLLMENT_RETRY_WINDOW_S} by a node that never confirmed its credential with a
 * `hello` (its `welcome` was lost), which may retry. Null when unknown, expired or spent.
 */
export async function findUsableEnrollmentToken(sql: Sql, token_hash: string): Promise<EnrollmentTokenRow | null> {
  const [row] = await sql<EnrollmentTokenRow[]>`
    SELECT ${COLUMNS(sql)} FROM enrollment_tokens
    WHERE token_hash = ${token_hash} AND expires_at > now()
      AND (status = 'active' OR (status = 'used'
        AND used_at > now() - make_interval(secs => ${ENROLLMENT_RETRY_WINDOW_S})
        AND consumed_node_id IN (SELECT id FROM nodes WHERE credential_confirmed_at IS NULL
          AND removed_at IS NULL AND status IN ('online', 'offline'))))`;
  return row ?? null;
}

/**
 * Consume a token inside the enrollment transaction: single use, atomically (the UPDATE's WHERE is
 * the check, so two concurrent enrollments cannot both win).
 * @returns the token as it was, or null when it is unknown, used or expired
 */
export async function consumeEnrollmentToken(tx: Executor, token_hash: string): Promise<EnrollmentTokenRow | null> {
  const [row] = await tx<EnrollmentTokenRow[]>`
    UPDATE enrollment_tokens SET status = 'used', used_at = now()
    WHERE token_hash = ${token_hash} AND status = 'active' AND expires_at > now()
    RETURNING ${COLUMNS(tx)}`;
  return row ?? null;
}

/** Record which node a consumed token created. */
export async function setConsumedNode(tx: Executor, token_id: string, node_id: string): Promise<void> {
  await tx`UPDATE enrollment_tokens SET consumed_node_id = ${node_id} WHERE id = ${token_id}`;
}
