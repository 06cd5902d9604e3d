import type postgres from 'postgres';
import type { Sql } from '../db/sql.js';
import type { OwnerScope } from '../teams/authorize.js';
import { ownedBy } from '../teams/owner-scope.db.js';

/** An enrollment token row (docs/api/nodes.md); `status` is derived: active, used or expired. */
export interface EnrollmentTokenRow {
  id: string;
  user_id: string;
  /** The team it (and the node it enrolls) belongs to, or null: personal (0046_teams.sql). */
  team_id: string | null;
  preview: string;
  label: string | null;
  country_code: string | null;
  declared_province: string | null;
  city_id: number | null;
  operator: string | null;
  status: 'active' | 'used' | 'expired';
  consumed_node_id: string | null;
  /** The node it enrolls is shared with other accounts from its enrollment (0045). */
  shared: boolean;
  created_at: Date;
  expires_at: Date;
}

type Executor = Sql | postgres.TransactionSql<Record<string, never>>;

const COLUMNS = (sql: Executor) => sql`
  id, user_id, team_id, preview, label, country_code, declared_province, city_id, operator, consumed_node_id, shared,
  created_at, expires_at,
  CASE WHEN status = 'used' THEN 'used' WHEN expires_at <= now() THEN 'expired' ELSE 'active' END AS status`;

/**
 * Store a new token (only its hash). `ttl_hours` from now sets `expires_at`; `shared` is carried
 * to the node it enrolls (docs/api/nodes.md "Sharing").
 * @returns the stored row
 */
export async function insertEnrollmentToken(sql: Sql, t: {
  id: string; user_id: string; team_id: string | null; token_hash: string; preview: string; label: string | null;
  country_code: string | null; declared_province: string | null; city_id: number | null;
  operator: string | null; sponsor_user_id: string | null; ttl_hours: number; shared: boolean;
}): Promise<EnrollmentTokenRow> {
  const [row] = await sql<EnrollmentTokenRow[]>`
    INSERT INTO enrollment_tokens (id, user_id, team_id, token_hash, preview, label, country_code, declared_province,
      city_id, operator, sponsor_user_id, shared, expires_at)
    VALUES (${t.id}, ${t.user_id}, ${t.team_id}, ${t.token_hash}, ${t.preview}, ${t.label}, ${t.country_code},
      ${t.declared_province}, ${t.city_id}, ${t.operator}, ${t.sponsor_user_id}, ${t.shared},
      now() + make_interval(hours => ${t.ttl_hours}))
    RETURNING ${COLUMNS(sql)}`;
  return row!;
}

/** The tokens in `scope` (teams/authorize.ts ownerScope), newest first (docs/api/nodes.md list `{tokens[]}`). */
export async function listEnrollmentTokens(sql: Sql, scope: OwnerScope): Promise<EnrollmentTokenRow[]> {
  return sql<EnrollmentTokenRow[]>`
    SELECT ${COLUMNS(sql)} FROM enrollment_tokens WHERE ${ownedBy(sql, scope)} ORDER BY created_at DESC, id DESC LIMIT 500`;
}

/** The token record `id` whoever owns it (the route decides access), or null. */
export async function getEnrollmentToken(sql: Sql, id: string): Promise<EnrollmentTokenRow | null> {
  const [row] = await sql<EnrollmentTokenRow[]>`SELECT ${COLUMNS(sql)} FROM enrollment_tokens WHERE id = ${id}`;
  return row ?? null;
}

/** Revoke (delete) token record `id` (access decided by the caller). @returns false when it does not exist. */
export async function deleteEnrollmentToken(sql: Sql, id: string): Promise<boolean> {
  const rows = await sql`DELETE FROM enrollment_tokens WHERE id = ${id} RETURNING id`;
  return rows.length > 0;
}

/** How long a used token may re-enroll the node it created while that node never confirmed its credential. */
export const ENROLLMENT_RETRY_WINDOW_S = 900;

/**
 * What an `ent_` token may do now (upgrade authentication; docs/architecture/hub.md enrollment):
 * - `new`: active and unexpired: it enrolls a new node;
 * - `retry`: used within {@link ENROLLMENT_RETRY_WINDOW_S} by a node that never confirmed its
 *   credential and that no instance holds (its `welcome` was lost): the same node gets a new
 *   credential;
 * - `busy`: as `retry`, but an instance holds a connection of that node: its enrollment connection
 *   is still open and has not confirmed yet, so nothing is re-issued (a live node is never handed
 *   to a second party); the caller may try again once that connection ends.
 * Null when the token is unknown, expired or spent (its node confirmed, was removed or disabled).
 */
export async function enrollmentTokenUse(sql: Sql, token_hash: string): Promise<{ kind: 'new' | 'retry' | 'busy' } | null> {
  const [row] = await sql<{ status: string; retry: boolean; node_status: string | null; held: boolean }[]>`
    SELECT t.status,
      (t.used_at > now() - make_interval(secs => ${ENROLLMENT_RETRY_WINDOW_S})
        AND n.credential_confirmed_at IS NULL AND n.removed_at IS NULL) AS retry,
      n.status AS node_status, n.instance_id IS NOT NULL AS held
    FROM enrollment_tokens t LEFT JOIN nodes n ON n.id = t.consumed_node_id
    WHERE t.token_hash = ${token_hash} AND t.expires_at > now()`;
  if (!row) return null;
  if (row.status === 'active') return { kind: 'new' };
  if (!row.retry || (row.node_status !== 'online' && row.node_status !== 'offline')) return null;
  // Held by an instance (online, or offline while its link is suspect): a connection is open.
  return row.node_status === 'offline' && !row.held ? { kind: 'retry' } : { kind: 'busy' };
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
