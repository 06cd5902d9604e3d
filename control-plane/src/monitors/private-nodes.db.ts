import type { Sql } from '../db/sql.js';

/**
 * True when `user_id` owns at least one node (not removed, not banned) whose operator allows
 * private targets (`nodes.allow_private`, 0010_nodes.sql): only then may the user's monitors
 * target private addresses, and they run only on such nodes.
 */
export async function ownsPrivateNode(sql: Sql, user_id: string): Promise<boolean> {
  const [row] = await sql<{ found: boolean }[]>`
    SELECT EXISTS (SELECT 1 FROM nodes WHERE owner_user_id = ${user_id} AND allow_private
      AND removed_at IS NULL AND status <> 'banned') AS found`;
  return row!.found;
}
