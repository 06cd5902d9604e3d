import type { Sql } from '../db/sql.js';

/**
 * True when `owner` (a monitor's {user_id: creator, team_id}) has at least one node (not removed,
 * not banned) whose operator allows private targets (`nodes.allow_private`, 0010_nodes.sql): a
 * team's node, whoever of its members enrolled it, for a team's monitor; one of the creator's
 * personal nodes for a personal monitor (the owner comparison of nodes/sharing.ts sameOwner).
 * Only then may the monitor target private addresses, and it runs only on such nodes.
 */
export async function ownsPrivateNode(sql: Sql, owner: { user_id: string; team_id: string | null }): Promise<boolean> {
  const whose = owner.team_id !== null ? sql`team_id = ${owner.team_id}` : sql`team_id IS NULL AND owner_user_id = ${owner.user_id}`;
  const [row] = await sql<{ found: boolean }[]>`
    SELECT EXISTS (SELECT 1 FROM nodes WHERE ${whose} AND allow_private
      AND removed_at IS NULL AND status <> 'banned') AS found`;
  return row!.found;
}
