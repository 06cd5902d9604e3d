import type { ArtifactKind } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';
import type { Sql } from '../db/sql.js';

/*
 * SQL of check artifacts (0035_check_artifacts.sql): files, the checks they were uploaded for,
 * upload authorisation against placements, and the retention job's claim and deletions.
 */

/** A node's upload as the store checks it: which node, for which monitor, round and kind. */
export interface UploadClaim {
  node_id: string;
  monitor_id: string;
  scheduled_at: Date;
  kind: ArtifactKind;
}

/** Why the database refuses an upload, or null when it may go ahead. */
export type UploadRefusal = 'no_monitor' | 'not_browser' | 'not_placed' | 'too_many' | null;

/**
 * May `c.node_id` upload an artifact of `c.kind` for monitor `c.monitor_id`'s round
 * `c.scheduled_at`? The monitor must exist and be a browser monitor; the node must be placed on
 * it (placement live, or ended less than `history_ms` ago: results it buffered while placed still
 * count, as at ingest); and the round may hold at most `per_round_max` artifacts of that kind
 * from that node (a node that re-ran a round after a restart uploads a second set; no more).
 */
export async function uploadRefusal(sql: SqlExecutor, c: UploadClaim, history_ms: number, per_round_max: number): Promise<UploadRefusal> {
  const [row] = await sql<{ type: string; placed: boolean; held: number }[]>`
    SELECT m.type,
      EXISTS (SELECT 1 FROM monitor_placements p WHERE p.monitor_id = m.id AND p.node_id = ${c.node_id}
        AND (p.ended_at IS NULL OR p.ended_at > now() - make_interval(secs => ${history_ms / 1000}))) AS placed,
      (SELECT count(*) FROM check_artifacts a WHERE a.monitor_id = m.id AND a.node_id = ${c.node_id}
        AND a.scheduled_at = ${c.scheduled_at} AND a.kind = ${c.kind})::int AS held
    FROM monitors m WHERE m.id = ${c.monitor_id}`;
  if (!row) return 'no_monitor';
  if (row.type !== 'browser') return 'not_browser';
  if (!row.placed) return 'not_placed';
  if (row.held >= per_round_max) return 'too_many';
  return null;
}

/** The size in bytes of this exact upload (same content for the same check and kind) when it is registered already, else null. */
export async function registeredSize(sql: SqlExecutor, c: UploadClaim, sha256: string): Promise<number | null> {
  const [row] = await sql<{ size_bytes: number }[]>`SELECT f.size_bytes FROM check_artifacts a JOIN artifact_files f ON f.sha256 = a.sha256
    WHERE a.monitor_id = ${c.monitor_id} AND a.sha256 = ${sha256} AND a.node_id = ${c.node_id} AND a.scheduled_at = ${c.scheduled_at} AND a.kind = ${c.kind}`;
  return row?.size_bytes ?? null;
}

/**
 * Register a stored file and the check it was uploaded for (one transaction: the file row, its
 * `touched_at` renewed, then the reference). Idempotent.
 */
export async function registerArtifact(sql: Sql, c: UploadClaim, sha256: string, size_bytes: number): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`INSERT INTO artifact_files (sha256, size_bytes) VALUES (${sha256}, ${size_bytes})
      ON CONFLICT (sha256) DO UPDATE SET touched_at = now()`;
    await tx`INSERT INTO check_artifacts (monitor_id, node_id, scheduled_at, kind, sha256)
      VALUES (${c.monitor_id}, ${c.node_id}, ${c.scheduled_at}, ${c.kind}, ${sha256}) ON CONFLICT DO NOTHING`;
  });
}

/**
 * The kind and size of artifact `sha256` of monitor `monitor_id`, when some check of that monitor
 * was uploaded with it (and the file is registered); else null.
 */
export async function monitorArtifact(sql: SqlExecutor, monitor_id: string, sha256: string): Promise<{ kind: ArtifactKind; size_bytes: number } | null> {
  const [row] = await sql<{ kind: ArtifactKind; size_bytes: number }[]>`
    SELECT a.kind, f.size_bytes FROM check_artifacts a JOIN artifact_files f ON f.sha256 = a.sha256
    WHERE a.monitor_id = ${monitor_id} AND a.sha256 = ${sha256} LIMIT 1`;
  return row ?? null;
}

/** Claim the retention job if due (FOR UPDATE SKIP LOCKED in the caller's transaction); false when not due or held elsewhere. */
export async function claimRetentionJob(tx: SqlExecutor): Promise<boolean> {
  const [row] = await tx`SELECT 1 FROM artifact_jobs WHERE name = 'retention' AND due_at <= now() FOR UPDATE SKIP LOCKED`;
  return row !== undefined;
}

/** Set the retention job due again in `in_ms`. */
export async function finishRetentionJob(tx: SqlExecutor, in_ms: number): Promise<void> {
  await tx`UPDATE artifact_jobs SET due_at = now() + make_interval(secs => ${in_ms / 1000}) WHERE name = 'retention'`;
}

/** Make the retention job due now (tests). */
export async function makeArtifactJobDue(sql: SqlExecutor): Promise<void> {
  await sql`UPDATE artifact_jobs SET due_at = now()`;
}

/**
 * Forget references that keep nothing alive: rounds older than `retention_before` (the plan's raw
 * check retention: their checks are gone), and rounds older than `unclaimed_before` (results are
 * no longer accepted for them) whose check was never stored. A packed hour of the series
 * (check_blocks: checks/pack.ts) counts as holding the check: the reference waits for the raw
 * retention rather than have each block decoded here.
 * @returns how many references were deleted
 */
export async function dropExpiredReferences(tx: SqlExecutor, retention_before: Date, unclaimed_before: Date): Promise<number> {
  const expired = await tx`DELETE FROM check_artifacts WHERE scheduled_at < ${retention_before}`;
  const unclaimed = await tx`
    DELETE FROM check_artifacts a WHERE a.scheduled_at < ${unclaimed_before}
      AND NOT EXISTS (SELECT 1 FROM check_series s CROSS JOIN LATERAL check_entries(ARRAY[s.id], a.scheduled_at, a.scheduled_at + interval '1 millisecond') c
        WHERE s.monitor_id = a.monitor_id AND s.node_id = a.node_id)
      AND NOT EXISTS (SELECT 1 FROM check_series s JOIN check_blocks b ON b.series_id = s.id
        AND b.hour = date_bin('1 hour', a.scheduled_at, timestamptz '1970-01-01 00:00:00+00')
        WHERE s.monitor_id = a.monitor_id AND s.node_id = a.node_id)`;
  return expired.count + unclaimed.count;
}

/**
 * Delete up to `limit` file rows no reference names and no upload touched since `idle_before`.
 * @returns their digests (the caller deletes the files)
 */
export async function dropUnreferencedFiles(tx: SqlExecutor, idle_before: Date, limit: number): Promise<string[]> {
  const rows = await tx<{ sha256: string }[]>`
    DELETE FROM artifact_files WHERE sha256 IN (
      SELECT f.sha256 FROM artifact_files f WHERE f.touched_at < ${idle_before}
        AND NOT EXISTS (SELECT 1 FROM check_artifacts a WHERE a.sha256 = f.sha256)
      LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING sha256`;
  return rows.map((r) => r.sha256);
}
