import type { Config } from '../config/index.js';
import type { NodeDisconnector } from '../contracts.js';
import type { Sql } from '../db/sql.js';
import type { Logger } from '../log.js';
import { purgeDueAccounts } from './account-deletion.js';

/**
 * Purge accounts whose deletion grace period has passed (docs/api/accounts.md "Account
 * lifecycle"), at start and every `account_purge_interval_s` on every instance: each purge locks
 * its account's row and re-checks it, so instances need no coordination.
 * @returns stop(): clears the timer
 */
export function startAccountPurger(deps: { sql: Sql; log: Logger; hub?: NodeDisconnector; config: Pick<Config, 'account_purge_interval_s'> }): () => void {
  const log = deps.log.child({ module: 'jobs.account-purge' });
  const run = () => {
    purgeDueAccounts({ sql: deps.sql, log, hub: deps.hub }).catch((err) => log.warn({ err }, 'account purge run failed'));
  };
  run();
  const timer = setInterval(run, deps.config.account_purge_interval_s * 1000);
  timer.unref();
  return () => clearInterval(timer);
}
