import type { Config } from './config/index.js';
import type { Sql } from './db/sql.js';
import type { NodeHub, ResultSink } from './hub/contract.js';
import type { Logger } from './log.js';

/**
 * What the app and the hub are built from (STYLE.md: construction apart from listening). main.ts
 * builds these once; tests build them against a test database.
 */
export interface AppDeps {
  config: Config;
  sql: Sql;
  log: Logger;
  /** The node hub (hub/hub.ts createHub): task delivery to nodes; node routes close sockets through it. */
  hub: NodeHub;
  /** Where the hub hands node results and task acks (tasks/sink.ts createResultSink). */
  results: ResultSink;
}
