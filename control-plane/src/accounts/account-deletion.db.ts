import type { Sql } from '../db/sql.js';

/** A team in which an account is the only owner (it cannot leave it ownerless). */
export interface OwnedTeam {
  id: string;
  name: string;
  /** Members besides the owner. */
  other_members: number;
}

/** Teams where `user_id` is an owner and no other member is (docs/api/teams.md roles). */
export async function teamsSolelyOwned(sql: Sql, user_id: string): Promise<OwnedTeam[]> {
  return sql<OwnedTeam[]>`
    SELECT t.id, t.name, (SELECT count(*)::int FROM team_members o WHERE o.team_id = t.id AND o.user_id <> ${user_id}) AS other_members
    FROM team_members m JOIN teams t ON t.id = m.team_id
    WHERE m.user_id = ${user_id} AND m.role = 'owner'
      AND NOT EXISTS (SELECT 1 FROM team_members o WHERE o.team_id = t.id AND o.role = 'owner' AND o.user_id <> ${user_id})
    ORDER BY t.created_at, t.id`;
}

/**
 * Mark an active account `deleting` (purged at now + `grace_s`), revoke all its sessions and
 * keys, and store the hash of its restore token (valid until the purge), in one transaction;
 * `then` runs inside it (queue the restore e-mail).
 * @returns the purge time, or null when the account is not active
 */
export async function scheduleDeletion<T>(
  sql: Sql, v: { user_id: string; grace_s: number; token_hash: string }, then: (tx: Sql, purge_at: Date) => Promise<T>,
): Promise<{ purge_at: Date; result: T } | null> {
  return sql.begin(async (tx) => {
    const [u] = await tx<{ deletion_scheduled_at: Date }[]>`
      UPDATE users SET status = 'deleting', deletion_requested_at = now(),
        deletion_scheduled_at = now() + make_interval(secs => ${v.grace_s}), updated_at = now()
      WHERE id = ${v.user_id} AND status = 'active' RETURNING deletion_scheduled_at`;
    if (!u) return null;
    await tx`UPDATE sessions SET revoked_at = now() WHERE user_id = ${v.user_id} AND revoked_at IS NULL`;
    await tx`UPDATE access_keys SET revoked_at = now() WHERE user_id = ${v.user_id} AND revoked_at IS NULL`;
    await tx`DELETE FROM phone_verifications WHERE user_id = ${v.user_id}`;
    await tx`
      INSERT INTO account_restore_tokens (token_hash, user_id, expires_at)
      VALUES (${v.token_hash}, ${v.user_id}, ${u.deletion_scheduled_at})`;
    return { purge_at: u.deletion_scheduled_at, result: await then(tx as unknown as Sql, u.deletion_scheduled_at) };
  }) as Promise<{ purge_at: Date; result: T } | null>;
}

/**
 * Make a deleting account active again and use up its restore tokens, in one transaction. With
 * `token_hash`, only the account of that unused, unexpired token; with `user_id`, that account.
 * @returns the restored account's id, or null (no such token, or the account is not deleting)
 */
export async function restoreAccount(sql: Sql, by: { token_hash: string } | { user_id: string }): Promise<string | null> {
  return sql.begin(async (tx) => {
    let user_id: string | undefined;
    if ('token_hash' in by) {
      const [t] = await tx<{ user_id: string }[]>`
        SELECT user_id FROM account_restore_tokens
        WHERE token_hash = ${by.token_hash} AND used_at IS NULL AND expires_at > now() FOR UPDATE`;
      user_id = t?.user_id;
    } else {
      user_id = by.user_id;
    }
    if (!user_id) return null;
    const [u] = await tx<{ id: string }[]>`
      UPDATE users SET status = 'active', deletion_requested_at = NULL, deletion_scheduled_at = NULL, updated_at = now()
      WHERE id = ${user_id} AND status = 'deleting' RETURNING id`;
    if (!u) return null;
    await tx`UPDATE account_restore_tokens SET used_at = now() WHERE user_id = ${user_id} AND used_at IS NULL`;
    return u.id;
  }) as Promise<string | null>;
}

/** Accounts whose grace period has passed, oldest first, at most `limit`. */
export async function dueDeletions(sql: Sql, limit: number): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    SELECT id FROM users WHERE status = 'deleting' AND deletion_scheduled_at <= now()
    ORDER BY deletion_scheduled_at, id LIMIT ${limit}`;
  return rows.map((r) => r.id);
}

/** What purgeAccount did. */
export type PurgeOutcome =
  | { outcome: 'purged'; removed_nodes: string[] }
  | { outcome: 'not_due' }
  | { outcome: 'sole_owner'; teams: string[] };

/** Tables of team-ownable resources with the creating account in `user_id` (0046_teams.sql and later). */
const TEAM_RESOURCE_TABLES = [
  'monitors', 'monitor_groups', 'alert_channels', 'alert_policies', 'alert_silences', 'alert_groups',
  'maintenance_windows', 'webhook_endpoints', 'alert_noise_rules',
] as const;

/**
 * Purge one account whose grace period has passed, in one transaction (docs/api/accounts.md
 * "Account lifecycle"): resources it created in a team pass to an owner of that team (the
 * longest-standing other owner) and stay the team's, with the alert events of those monitors and
 * the pending group batches of those channels; its personal enrollment tokens and alert
 * policies are deleted first (a policy's channels are RESTRICT), then the users row, which
 * deletes every other personal resource and its memberships by ON DELETE CASCADE.
 * Its team nodes pass to that owner too; its personal nodes are removed (credential revoked).
 * @returns `purged` with the ids of the personal nodes removed (for the caller to disconnect),
 *   `not_due` (restored or not yet due: nothing done) or `sole_owner` with the teams it is still
 *   the only owner of (nothing done; retried at the next run)
 */
export async function purgeAccount(sql: Sql, user_id: string): Promise<PurgeOutcome> {
  return sql.begin(async (tx) => {
    const [u] = await tx`
      SELECT id FROM users WHERE id = ${user_id} AND status = 'deleting' AND deletion_scheduled_at <= now() FOR UPDATE`;
    if (!u) return { outcome: 'not_due' as const };
    const sole = await teamsSolelyOwned(tx as unknown as Sql, user_id);
    if (sole.length > 0) return { outcome: 'sole_owner' as const, teams: sole.map((t) => t.id) };
    for (const table of TEAM_RESOURCE_TABLES) {
      await tx`
        UPDATE ${tx(table)} r SET user_id = (
          SELECT o.user_id FROM team_members o WHERE o.team_id = r.team_id AND o.role = 'owner' AND o.user_id <> ${user_id}
          ORDER BY o.created_at, o.user_id LIMIT 1)
        WHERE r.user_id = ${user_id} AND r.team_id IS NOT NULL`;
    }
    // Alert history and pending group batches follow their (now reassigned) team monitor or channel.
    await tx`
      UPDATE alert_events e SET user_id = m.user_id FROM monitors m
      WHERE e.monitor_id = m.id AND e.user_id = ${user_id} AND m.team_id IS NOT NULL`;
    await tx`
      UPDATE alert_group_batches b SET user_id = c.user_id FROM alert_channels c
      WHERE b.channel_id = c.id AND b.user_id = ${user_id} AND c.team_id IS NOT NULL`;
    // Nodes: a team's node passes to the same owner as the team's other resources; a personal
    // node is removed as DELETE /v1/nodes/{id} removes it (row kept for old results, credential
    // revoked), and the caller disconnects it.
    await tx`
      UPDATE nodes n SET owner_user_id = (
        SELECT o.user_id FROM team_members o WHERE o.team_id = n.team_id AND o.role = 'owner' AND o.user_id <> ${user_id}
        ORDER BY o.created_at, o.user_id LIMIT 1)
      WHERE n.owner_user_id = ${user_id} AND n.team_id IS NOT NULL`;
    const removed = await tx<{ id: string }[]>`
      UPDATE nodes SET removed_at = now(), credential_hash = NULL, status = 'offline', instance_id = NULL
      WHERE owner_user_id = ${user_id} AND team_id IS NULL AND removed_at IS NULL
      RETURNING id`;
    await tx`DELETE FROM enrollment_tokens WHERE user_id = ${user_id} AND team_id IS NULL`;
    await tx`DELETE FROM alert_policies WHERE user_id = ${user_id}`;
    await tx`DELETE FROM users WHERE id = ${user_id}`;
    return { outcome: 'purged' as const, removed_nodes: removed.map((r) => r.id) };
  }) as Promise<PurgeOutcome>;
}
