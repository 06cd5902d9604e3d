import type { Config } from './config/index.js';
import type { Sql } from './db/sql.js';
import type { EventPublisher, Mailer, NodeHub, ResultSink } from './contracts.js';
import type { OutboundConnector } from './delivery/connector.js';
import type { Logger } from './log.js';
import type { OpsState } from './metrics/ops-state.js';
import type { ControlPlaneMetrics } from './metrics/registry.js';

/**
 * What the app and the hub are built from (construction apart from listening). main.ts
 * builds these once; tests build them against a test database.
 */
export interface AppDeps {
  config: Config;
  sql: Sql;
  /**
   * The client of automatic node picks and uptime answers (db/sql.ts genericPlanClient: generic
   * plans only); `sql` when absent (embedded Postgres takes one connection only; tests).
   */
  generic_sql?: Sql;
  log: Logger;
  /** The node hub (hub/hub.ts createHub): task delivery to nodes; node routes close sockets through it. */
  hub: NodeHub;
  /** Where the hub hands node results and task acks (probes/sink.ts createResultSink). */
  results: ResultSink;
  /** Webhook events of the catalog, queued for subscribed endpoints (webhooks/publisher.ts). */
  events: EventPublisher;
  /** E-mail through the delivery engine, or the log without SMTP (delivery/mailer.ts). */
  mail: Mailer;
  /** The process's outbound connector (outbound.ts): look-ups that connect out (lookups/) use it; absent in tests that build deps by hand. */
  connector?: OutboundConnector;
  /** The process's Prometheus metrics (metrics/registry.ts); absent = no request metrics and GET /metrics answers 503. */
  metrics?: ControlPlaneMetrics;
  /** Listening and draining, as GET /readyz reports them (metrics/ops-state.ts); absent = never ready. */
  ops?: OpsState;
}
