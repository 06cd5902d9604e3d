import type { SqlExecutor } from '../contracts.js';
import type { OwnerScope } from './authorize.js';

/**
 * SQL condition "the row is in `scope`" for a table with `user_id` and `team_id` columns (ours:
 * 0046_teams.sql): a personal row of `scope.user_id`, or a row of one of `scope.team_ids`.
 * `table` qualifies the columns (an alias, e.g. `m`), or none.
 *
 * @example ex`SELECT * FROM monitors m WHERE ${ownedBy(ex, scope, 'm')} ORDER BY m.created_at`
 */
export function ownedBy(ex: SqlExecutor, scope: OwnerScope, table?: string) {
  const col = (name: string) => ex(table ? `${table}.${name}` : name);
  return scope.user_id === null
    ? ex`${col('team_id')} = ANY(${scope.team_ids}::text[])`
    : ex`((${col('team_id')} IS NULL AND ${col('user_id')} = ${scope.user_id}) OR ${col('team_id')} = ANY(${scope.team_ids}::text[]))`;
}
