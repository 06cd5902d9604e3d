import type { SqlExecutor } from '../contracts.js';
import type { GroupRef } from './grouping.js';
import type { BatchMember } from './grouping.js';

/*
 * Queries of alert-group batches (0034_alert_group_batches.sql). Lock order, everywhere: an event
 * (claimed by the engine) before a batch; a batch before its notification rows. A page joins or
 * leaves an open batch holding it FOR SHARE; a flush holds it FOR NO KEY UPDATE, so the two
 * never interleave and a flush sees every page committed into its batch.
 */

/** An `alert_group_batches` row (`id` is a bigint, read as a string). */
export interface BatchRow {
  id: string;
  user_id: string;
  group_id: string | null;
  group_name: string;
  wait_seconds: number;
  channel_id: string;
  opened_at: Date;
  flush_at: Date;
  flushed_at: Date | null;
  delivery_id: string | null;
  monitors: number | null;
}

/** The owner's alert groups, oldest first (the first match gathers a monitor). */
export async function groupsOfUser(ex: SqlExecutor, owner: { user_id: string; team_id?: string | null }): Promise<GroupRef[]> {
  // A team's monitor is gathered by its team's groups, a personal one by its creator's.
  const whose = owner.team_id ? ex`team_id = ${owner.team_id}` : ex`team_id IS NULL AND user_id = ${owner.user_id}`;
  return ex<GroupRef[]>`SELECT id, name, group_by, group_value, wait_seconds FROM alert_groups WHERE ${whose} ORDER BY created_at, id`;
}

/**
 * The open batch of (group, channel), opened now with `flush_at` = `at` + wait_seconds when there
 * is none, held FOR SHARE until the caller's transaction ends. @returns its id
 */
export async function openBatch(ex: SqlExecutor, user_id: string, group: GroupRef, channel_id: string, at: Date): Promise<string> {
  for (;;) {
    await ex`
      INSERT INTO alert_group_batches (user_id, group_id, group_name, wait_seconds, channel_id, opened_at, flush_at)
      VALUES (${user_id}, ${group.id}, ${group.name}, ${group.wait_seconds}, ${channel_id}, ${at}, ${new Date(at.getTime() + group.wait_seconds * 1000)})
      ON CONFLICT (group_id, channel_id) WHERE flushed_at IS NULL DO NOTHING`;
    // A flush committing meanwhile closes the batch: the re-checked row no longer matches; open the next.
    const [row] = await ex<Array<{ id: string }>>`
      SELECT id FROM alert_group_batches WHERE group_id = ${group.id} AND channel_id = ${channel_id} AND flushed_at IS NULL FOR SHARE`;
    if (row) return String(row.id);
  }
}

/**
 * Withdraw an event's pages from the batches still open (the event was acknowledged or resolved
 * before they went out): marked `suppressed = 'withdrawn'`, never listed. @returns how many
 */
export async function withdrawFromOpenBatches(ex: SqlExecutor, event_id: string): Promise<number> {
  const open = await ex<Array<{ id: string }>>`
    SELECT b.id FROM alert_group_batches b
    WHERE b.flushed_at IS NULL AND b.id IN (SELECT batch_id FROM alert_event_notifications WHERE event_id = ${event_id} AND batch_id IS NOT NULL)
    ORDER BY b.id FOR SHARE OF b`;
  if (open.length === 0) return 0;
  const rows = await ex`
    UPDATE alert_event_notifications SET suppressed = 'withdrawn'
    WHERE event_id = ${event_id} AND batch_id = ANY(${open.map((b) => String(b.id))}::bigint[]) AND suppressed IS NULL AND delivery_id IS NULL
    RETURNING event_id`;
  return rows.length;
}

/** Claim batches due at `now` (FOR NO KEY UPDATE SKIP LOCKED: a batch a page is joining waits for the next pass). */
export async function claimDueBatches(ex: SqlExecutor, now: Date, limit: number): Promise<BatchRow[]> {
  const rows = await ex<BatchRow[]>`
    SELECT * FROM alert_group_batches WHERE flushed_at IS NULL AND flush_at <= ${now}
    ORDER BY flush_at, id LIMIT ${limit} FOR NO KEY UPDATE SKIP LOCKED`;
  return rows.map((r) => ({ ...r, id: String(r.id) }));
}

/** The pages gathered in a batch and not withdrawn, in the order they joined, with their events and monitors. */
export async function batchMembers(ex: SqlExecutor, batch_id: string): Promise<BatchMember[]> {
  const rows = await ex<Array<{ event_id: string; event_type: 'down' | 'degraded'; started_at: Date; metadata: { reason?: string | null } | null;
    monitor_id: string; name: string; type: string; target: string | null }>>`
    SELECT n.event_id, e.type AS event_type, e.started_at, e.metadata, m.id AS monitor_id, m.name, m.type, m.target
    FROM alert_event_notifications n JOIN alert_events e ON e.id = n.event_id JOIN monitors m ON m.id = e.monitor_id
    WHERE n.batch_id = ${batch_id}::bigint AND n.suppressed IS NULL
    ORDER BY n.created_at, n.event_id`;
  return rows.map((r) => ({
    event_id: r.event_id, event_type: r.event_type, started_at: r.started_at, reason: r.metadata?.reason ?? null,
    monitor: { id: r.monitor_id, name: r.name, type: r.type, target: r.target },
  }));
}

/** Close a claimed batch: its delivery (null when nothing was left to send) set on it and on its pages. */
export async function closeBatch(ex: SqlExecutor, batch_id: string, delivery_id: string | null, monitors: number, now: Date): Promise<void> {
  await ex`UPDATE alert_group_batches SET flushed_at = ${now}, delivery_id = ${delivery_id}, monitors = ${monitors} WHERE id = ${batch_id}::bigint`;
  if (delivery_id) await ex`UPDATE alert_event_notifications SET delivery_id = ${delivery_id} WHERE batch_id = ${batch_id}::bigint AND suppressed IS NULL`;
}
