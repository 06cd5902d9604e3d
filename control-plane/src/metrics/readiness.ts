import type { Sql } from '../db/sql.js';
import { pendingMigrations } from '../db/migrate.js';
import type { OpsState } from './ops-state.js';

/** How long GET /readyz waits for the database before calling it unreachable, ms. */
export const READY_DB_TIMEOUT_MS = 2_000;

/** Each condition of readiness: `ok`, or why not. */
export interface Readiness {
  ready: boolean;
  checks: { database: string; migrations: string; hub: string };
}

function timeout(ms: number): Promise<never> {
  return new Promise((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref());
}

/**
 * Whether this instance should receive traffic (docs/operators/metrics.md "Health"): the database
 * answers within {@link READY_DB_TIMEOUT_MS} and has every migration this code ships, and the
 * server listens with the node hub attached and is not draining. Never throws.
 */
export async function readiness(sql: Sql, ops: OpsState | undefined): Promise<Readiness> {
  let database = 'ok';
  let migrations = 'ok';
  try {
    const pending = await Promise.race([pendingMigrations(sql), timeout(READY_DB_TIMEOUT_MS)]);
    if (pending.length > 0) migrations = `${pending.length} not applied (first: ${pending[0]})`;
  } catch (err) {
    database = `unreachable: ${(err as Error).message}`.slice(0, 300);
    migrations = 'unknown';
  }
  const hub = !ops ? 'not started' : ops.draining ? 'draining' : ops.listening ? 'ok' : 'not listening yet';
  return { ready: database === 'ok' && migrations === 'ok' && hub === 'ok', checks: { database, migrations, hub } };
}
