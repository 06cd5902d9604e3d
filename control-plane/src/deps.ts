import type { Config } from './config/index.js';
import type { Sql } from './db/sql.js';
import type { Logger } from './log.js';

/**
 * What the app and the hub are built from (STYLE.md: construction apart from listening). main.ts
 * builds these once; tests build them against a test database.
 */
export interface AppDeps {
  config: Config;
  sql: Sql;
  log: Logger;
}
