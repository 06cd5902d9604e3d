import type { ResultSink } from '../contracts.js';
import type { ControlPlaneMetrics } from './registry.js';

/**
 * The result sink with metrics: after `ingest` resolves (the batch committed), each stored result
 * counts in `vantage_results_stored_total`, task results in `vantage_probe_task_results_total`
 * and monitor results update the `vantage_monitor_*` series. A redelivered result the node sent
 * again after a lost ack counts again (rare; the counters are rates, not totals of rows).
 */
export function withResultMetrics(sink: ResultSink, metrics: ControlPlaneMetrics): ResultSink {
  return {
    ...sink,
    async ingest(node_id, results) {
      const out = await sink.ingest(node_id, results);
      const stored = new Set(out.stored);
      for (const r of results) {
        if (!stored.has(r.result_id)) continue;
        if (r.monitor_id === null) {
          metrics.results_stored.inc({ kind: 'task' });
          metrics.probe_results.inc({ type: r.type, outcome: r.success ? 'success' : r.error_class ?? 'internal' });
        } else {
          metrics.results_stored.inc({ kind: 'monitor' });
          metrics.monitors.record({ monitor_id: r.monitor_id, node_id, success: r.success, scheduled_at: r.scheduled_at, started_at: r.started_at, finished_at: r.finished_at });
        }
      }
      return out;
    },
  };
}
