import type { SqlExecutor } from '../contracts.js';
import type { TeamRole } from './roles.js';

/**
 * The teams user `user_id` belongs to, with its role in each (read on every request that needs
 * it, never cached: a removed member loses access at once).
 */
export async function rolesOfUser(ex: SqlExecutor, user_id: string): Promise<Map<string, TeamRole>> {
  const rows = await ex<{ team_id: string; role: TeamRole }[]>`SELECT team_id, role FROM team_members WHERE user_id = ${user_id}`;
  return new Map(rows.map((r) => [r.team_id, r.role]));
}
