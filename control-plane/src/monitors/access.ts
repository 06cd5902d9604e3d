import { isId } from '@vantage/shared-protocol';
import type { Context } from 'hono';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { authorize, type Actor } from '../teams/authorize.js';
import type { Access } from '../teams/roles.js';
import { findGroup, type GroupRow } from './monitor-groups.db.js';
import { findMonitor, type MonitorRow } from './monitors.db.js';

/*
 * Every route of the monitors family reads its monitor or group here, and access is decided by
 * the one authorization function (teams/authorize.ts; docs/api/teams.md "Who may do what").
 */

/**
 * Monitor `id` if the caller may `access` it (`read` for GET, `write` for every change).
 * @throws ApiError MONITOR_NOT_FOUND (404) for a malformed or unknown id, or one the caller may
 *   not read (another account's, another team's); FORBIDDEN (403) when it may read but not `access`
 */
export async function monitorFor(c: Context<AppEnv>, deps: Pick<AppDeps, 'sql'>, id: string, access: Access): Promise<{ row: MonitorRow; actor: Actor }> {
  const row = isId('monitor', id) ? await findMonitor(deps.sql, id) : null;
  const actor = await authorize(c, deps, row, access, 'MONITOR_NOT_FOUND', 'monitor');
  return { row: row!, actor };
}

/**
 * Monitor group `id` if the caller may `access` it.
 * @throws ApiError NOT_FOUND (404) for a malformed or unknown id, or one the caller may not
 *   read; FORBIDDEN (403) when it may read but not `access`
 */
export async function groupFor(c: Context<AppEnv>, deps: Pick<AppDeps, 'sql'>, id: string, access: Access): Promise<GroupRow> {
  const row = isId('monitor_group', id) ? await findGroup(deps.sql, id) : null;
  await authorize(c, deps, row, access, 'NOT_FOUND', 'monitor group');
  return row!;
}
