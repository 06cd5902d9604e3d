import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { Config } from '../config/index.js';
import { MonitorSeries } from './monitor-series.js';

/** Bucket bounds of the request latency histogram, seconds (prom-client's defaults plus 30 s for long polls). */
export const HTTP_DURATION_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The control plane's Prometheus metrics (docs/operators/metrics.md), one set per process:
 * main.ts builds it and hands it to the app (`AppDeps.metrics`), the result sink wrapper
 * (result-metrics.ts) and the scrape-time gauges (scrape-gauges.ts).
 */
export interface ControlPlaneMetrics {
  registry: Registry;
  /** `vantage_http_requests_total{method,route,status}`: route is the matched route template. */
  http_requests: Counter<'method' | 'route' | 'status'>;
  /** `vantage_http_request_duration_seconds{method,route}`. */
  http_duration: Histogram<'method' | 'route'>;
  /** `vantage_probe_task_results_total{type,outcome}`: outcome `success` or the failure class. */
  probe_results: Counter<'type' | 'outcome'>;
  /** `vantage_results_stored_total{kind}`: kind `task` or `monitor`. */
  results_stored: Counter<'kind'>;
  /** Last monitor results, rendered after the registry's metrics. */
  monitors: MonitorSeries;
  /** The whole exposition text (registry, then monitor series). */
  render(): Promise<string>;
}

/**
 * Build the metric set on a registry of its own (never prom-client's global one, so tests can
 * build several), with Node.js process metrics (`process_*`, `nodejs_*`) from prom-client.
 */
export function createMetrics(config: Pick<Config, 'metrics_monitor_series_max' | 'metrics_monitor_ttl_s'>): ControlPlaneMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const monitors = new MonitorSeries(config.metrics_monitor_series_max, config.metrics_monitor_ttl_s);
  return {
    registry,
    http_requests: new Counter({ name: 'vantage_http_requests_total', help: 'HTTP requests answered, by method, route template and status code.', labelNames: ['method', 'route', 'status'], registers: [registry] }),
    http_duration: new Histogram({ name: 'vantage_http_request_duration_seconds', help: 'Time to answer an HTTP request (until the handler returned its response), seconds.', labelNames: ['method', 'route'], buckets: HTTP_DURATION_BUCKETS_S, registers: [registry] }),
    probe_results: new Counter({ name: 'vantage_probe_task_results_total', help: 'Probe task results stored, by probe type and outcome (success or the failure class).', labelNames: ['type', 'outcome'], registers: [registry] }),
    results_stored: new Counter({ name: 'vantage_results_stored_total', help: 'Node results stored (the ingest rate), by kind: task (ad-hoc probe) or monitor (check round).', labelNames: ['kind'], registers: [registry] }),
    monitors,
    async render() {
      return (await registry.metrics()) + (await monitors.render());
    },
  };
}
