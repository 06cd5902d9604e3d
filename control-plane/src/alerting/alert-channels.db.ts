import type { AlertChannelType } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';
import type { Sql } from '../db/sql.js';
import type { OwnerScope } from '../teams/authorize.js';
import { ownedBy } from '../teams/owner-scope.db.js';

/** An `alert_channels` row (0026_alerting.sql); `config` holds secrets in full. */
export interface AlertChannelRow {
  id: string;
  user_id: string;
  /** The owning team (0046_teams.sql), null when personal. */
  team_id: string | null;
  name: string;
  type: AlertChannelType;
  config: Record<string, unknown>;
  verified: boolean;
  verified_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** The channels of the owners in `scope` (teams/authorize.ts ownerScope), oldest first. */
export async function listChannels(sql: Sql, scope: OwnerScope): Promise<AlertChannelRow[]> {
  return sql<AlertChannelRow[]>`SELECT * FROM alert_channels WHERE ${ownedBy(sql, scope)} ORDER BY created_at, id`;
}

/** A channel by id alone (routes then authorize on its user_id/team_id; the senders read it at send time). */
export async function getChannelById(sql: Sql, id: string): Promise<AlertChannelRow | null> {
  const [row] = await sql<AlertChannelRow[]>`SELECT * FROM alert_channels WHERE id = ${id}`;
  return row ?? null;
}

/** Channels by id, whoever owns them (the senders' batched read at send time); ids not found are absent. */
export async function getChannelsByIds(sql: Sql, ids: string[]): Promise<AlertChannelRow[]> {
  if (ids.length === 0) return [];
  return sql<AlertChannelRow[]>`SELECT * FROM alert_channels WHERE id = ANY(${ids}::text[])`;
}

/** Insert a channel (inside the caller's transaction when `sql` is one). */
export async function insertChannel(sql: SqlExecutor, c: { id: string; user_id: string; team_id: string | null; name: string; type: AlertChannelType; config: Record<string, unknown> }): Promise<AlertChannelRow> {
  const [row] = await sql<AlertChannelRow[]>`
    INSERT INTO alert_channels (id, user_id, team_id, name, type, config)
    VALUES (${c.id}, ${c.user_id}, ${c.team_id}, ${c.name}, ${c.type}, ${sql.json(c.config as never)})
    RETURNING *`;
  return row!;
}

/**
 * Update name and/or config of a channel (the route authorized the change); a new config clears
 * `verified` (the destination may have changed); `team_id` given: a move (teams/move.ts). @returns the row, or null when it is gone
 */
export async function updateChannel(sql: SqlExecutor, id: string, p: { name?: string; config?: Record<string, unknown>; team_id?: string | null }): Promise<AlertChannelRow | null> {
  const { team_id } = p;
  const [row] = await sql<AlertChannelRow[]>`
    UPDATE alert_channels SET
      name = coalesce(${p.name ?? null}, name),
      config = coalesce(${p.config ? sql.json(p.config as never) : null}::jsonb, config),
      verified = CASE WHEN ${p.config !== undefined} THEN false ELSE verified END,
      verified_at = CASE WHEN ${p.config !== undefined} THEN NULL ELSE verified_at END,
      team_id = ${team_id === undefined ? sql`team_id` : team_id},
      updated_at = now()
    WHERE id = ${id}
    RETURNING *`;
  return row ?? null;
}

/** The ids of the policies that use channel `id` (directly or in an escalation level), sorted. */
export async function policiesUsingChannel(sql: SqlExecutor, id: string): Promise<string[]> {
  const rows = await sql<{ policy_id: string }[]>`SELECT DISTINCT policy_id FROM alert_policy_channels WHERE channel_id = ${id} ORDER BY policy_id`;
  return rows.map((r) => r.policy_id);
}

/**
 * Delete a channel (the route authorized it) unless a policy uses it.
 * @returns `deleted`, `missing`, or the ids of the policies that use it
 */
export async function deleteChannel(sql: Sql, id: string): Promise<'deleted' | 'missing' | { policy_ids: string[] }> {
  return sql.begin(async (tx) => {
    const [row] = await tx`SELECT id FROM alert_channels WHERE id = ${id} FOR UPDATE`;
    if (!row) return 'missing' as const;
    const used = await tx<{ policy_id: string }[]>`SELECT DISTINCT policy_id FROM alert_policy_channels WHERE channel_id = ${id} ORDER BY policy_id`;
    if (used.length > 0) return { policy_ids: used.map((u) => u.policy_id) };
    await tx`DELETE FROM alert_channels WHERE id = ${id}`;
    return 'deleted' as const;
  });
}

/**
 * Mark a channel verified after a successful test notification, unless its config changed since
 * the notification was queued (`queued_at`).
 */
export async function markVerified(sql: Sql, id: string, queued_at: Date): Promise<void> {
  await sql`UPDATE alert_channels SET verified = true, verified_at = now() WHERE id = ${id} AND updated_at <= ${queued_at}`;
}

/** Which of `ids` are channels in `scope` (a policy's own owner: route-kit.ts sameOwner). */
export async function ownedChannelIds(sql: Sql, scope: OwnerScope, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await sql<{ id: string }[]>`SELECT id FROM alert_channels WHERE ${ownedBy(sql, scope)} AND id IN ${sql(ids)}`;
  return new Set(rows.map((r) => r.id));
}
