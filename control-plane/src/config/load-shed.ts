import { z } from 'zod';

/**
 * Load shedding (docs/architecture/control-plane.md "Load shedding"): past these limits an
 * instance answers 503 UNAVAILABLE with Retry-After instead of queueing work it cannot finish in
 * time. Each field is read once in main.ts (VANTAGE_<FIELD>).
 */
export const loadShedConfigSchema = z.object({
  /**
   * Probe creations (POST /v1/probe/*) being handled on this instance at once beyond which new
   * ones are refused. Healthy, a creation takes a few ms, so a backlog means the instance or its
   * database is past capacity. 0 disables this limit.
   */
  shed_max_inflight_creations: z.coerce.number().int().min(0).max(100_000).default(24),
  /** Requests of any kind being handled on this instance at once beyond which any new one is refused; 0 disables. */
  shed_max_inflight_requests: z.coerce.number().int().min(0).max(1_000_000).default(512),
  /**
   * Event-loop delay, ms, beyond which probe creations are refused: the process is short of CPU.
   * The delay must be sustained (the 99th percentile of each of the last five 1 s windows passes
   * it), so one late second of start-up work or a burst is never a reason. 0 disables.
   */
  shed_event_loop_delay_ms: z.coerce.number().int().min(0).max(60_000).default(250),
  /**
   * Database round trip, ms, beyond which probe creations are refused: the database (or the
   * pool's connections) is the bottleneck. Timed with a `SELECT 1` through the pool every 200 ms
   * while probes are created; it must be sustained (the slowest of each of the last five 1 s
   * windows passes it). 0 disables.
   */
  shed_db_latency_ms: z.coerce.number().int().min(0).max(60_000).default(400),
  /**
   * Time to store node results, ms, beyond which probe creations are refused: the probe pipeline
   * is behind its latency budget (a probe's last result stored within 200 ms of its creation:
   * docs/benchmarks.md), even while a `SELECT 1` is still quick (results queue behind one
   * another's commits). Measured from the hub's hand-over of a `result.batch` to its commit; it
   * must be sustained (the slowest store of each of the last five 1 s windows passes it). 0 disables.
   */
  shed_result_latency_ms: z.coerce.number().int().min(0).max(60_000).default(200),
  /** Retry-After of a shed request, whole seconds. */
  shed_retry_after_s: z.coerce.number().int().min(1).max(3600).default(1),
});
