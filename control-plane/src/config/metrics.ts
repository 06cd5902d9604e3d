import { z } from 'zod';

/** Prometheus metrics and monitor result series (docs/operators/metrics.md). */
export const metricsConfigSchema = z.object({
  /**
   * Bearer token GET /metrics requires (VANTAGE_METRICS_TOKEN, at least 16 characters): a scraper
   * sends `Authorization: Bearer <token>`. Unset = /metrics answers only peers on the loopback
   * interface (127.0.0.0/8, ::1) that send no X-Forwarded-For or Forwarded header, so a scraper on
   * another host needs the token.
   */
  metrics_token: z.string().min(16).optional(),
  /**
   * Most monitor and node pairs kept as `vantage_monitor_*` series by this instance; past it the
   * pair that reported least recently is dropped. 0 = no monitor series.
   */
  metrics_monitor_series_max: z.coerce.number().int().min(0).max(10_000_000).default(200_000),
  /**
   * Seconds after its last result a monitor and node pair leaves the `vantage_monitor_*` series
   * (a paused or deleted monitor, a node now held by another instance); default one day.
   */
  metrics_monitor_ttl_s: z.coerce.number().int().min(60).default(86_400),
});
