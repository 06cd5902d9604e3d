import { Gauge } from 'prom-client';
import type { NodeHub } from '../contracts.js';
import type { Sql } from '../db/sql.js';
import type { Logger } from '../log.js';
import type { ControlPlaneMetrics } from './registry.js';
import { deliveryQueue, jobLags } from './scrape.db.js';

/** What the scrape-time gauges read. */
export interface ScrapeSources {
  sql: Sql;
  hub: Pick<NodeHub, 'localNodeIds'>;
  /** Connections of each database client by name (`main`, `pick`): the configured pool sizes. */
  pools: Record<string, number>;
  log: Logger;
}

/**
 * Gauges read when Prometheus scrapes (prom-client `collect`), registered once per metric set:
 * nodes connected to this instance's hub, the delivery queue (depth, oldest age, overdue), job lag,
 * the database pool sizes and whether the database answered (`vantage_db_up`, with the time
 * `SELECT 1` took). The database gauges cost two short statements per scrape; when the database
 * does not answer they keep their last values and `vantage_db_up` is 0.
 */
export function registerScrapeGauges(metrics: ControlPlaneMetrics, src: ScrapeSources): void {
  const registers = [metrics.registry];
  const log = src.log.child({ module: 'metrics' });
  new Gauge({ name: 'vantage_hub_nodes_connected', help: 'Node sockets this instance holds now.', registers, collect() { this.set(src.hub.localNodeIds().length); } });
  const pool = new Gauge({ name: 'vantage_db_pool_max_connections', help: 'Connections each database client may open (its pool size).', labelNames: ['pool'], registers });
  for (const [name, max] of Object.entries(src.pools)) pool.set({ pool: name }, max);
  // One database read per scrape, shared by every gauge below: prom-client collects them concurrently.
  let reading: Promise<void> | null = null;
  const refresh = (): Promise<void> => (reading ??= read().finally(() => { reading = null; }));
  const collect = async () => { await refresh(); };
  const depth = new Gauge({ name: 'vantage_delivery_queue_depth', help: 'Outbound deliveries (webhooks, e-mail) pending, all instances.', registers, collect });
  const oldest = new Gauge({ name: 'vantage_delivery_queue_oldest_age_seconds', help: 'Age of the oldest pending delivery, seconds.', registers, collect });
  const overdue = new Gauge({ name: 'vantage_delivery_queue_overdue_seconds', help: 'How far the earliest due delivery attempt is behind its time, seconds.', registers, collect });
  const lag = new Gauge({ name: 'vantage_job_lag_seconds', help: 'How long a background job has been due without running, seconds, by job name (label `name`: `job` is the scrape target\'s).', labelNames: ['name'], registers, collect });
  const ping = new Gauge({ name: 'vantage_db_ping_seconds', help: 'Time SELECT 1 took at the last scrape, seconds.', registers, collect });
  const up = new Gauge({ name: 'vantage_db_up', help: 'Whether the database answered at the last scrape (1) or not (0).', registers, collect });
  async function read(): Promise<void> {
    const started = performance.now();
    try {
      await src.sql`SELECT 1`;
      ping.set((performance.now() - started) / 1000);
      const [queue, lags] = await Promise.all([deliveryQueue(src.sql), jobLags(src.sql)]);
      depth.set(queue.depth);
      oldest.set(queue.oldest_age_s);
      overdue.set(queue.overdue_s);
      for (const row of lags) lag.set({ name: row.name }, row.lag_s);
      up.set(1);
    } catch (err) {
      log.warn({ err }, 'metrics scrape could not read the database');
      up.set(0);
    }
  }
}
