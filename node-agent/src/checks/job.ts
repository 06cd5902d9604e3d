import { newId, type CheckResult, type MonitorResultEnvelope } from '@vantage/shared-protocol';
import type { Logger } from 'pino';
import type { TargetPolicy } from '../probes/target-policy.js';
import type { Job } from '../tasks/queue.js';
import type { MonitorRun, MonitorRunOptions } from './runner.js';

/** The check engine's entry point (runner.ts runMonitorCheckWith with the node's checks). Never rejects. */
export type RunMonitorCheckFn = (run: MonitorRun, scheduled_at: string, opts: MonitorRunOptions) => Promise<CheckResult>;

export interface MonitorJobOptions {
  run: MonitorRun;
  /** The round, ISO 8601 UTC. */
  scheduled_at: string;
  /** Bound on the whole run, ms. */
  timeout_ms: number;
  runMonitorCheck: RunMonitorCheckFn;
  policy: TargetPolicy;
  log: Logger;
  /** Where the result goes: the outbox (written before it is sent). */
  deliver: (result: MonitorResultEnvelope) => void;
}

/**
 * A queue job that runs one monitor check for its round and delivers the monitor result envelope
 * (node-protocol messages.ts): the check result plus a new `r_` result id made here, when it was
 * produced. A runMonitorCheck that breaks its never-reject contract still yields a failed result
 * (class `internal`).
 */
export function monitorCheckJob(opts: MonitorJobOptions): Job {
  return async (signal) => {
    const started_at = new Date().toISOString();
    let result: CheckResult;
    try {
      result = await opts.runMonitorCheck(opts.run, opts.scheduled_at, { timeout_ms: opts.timeout_ms, signal, policy: opts.policy, log: opts.log });
    } catch (err) {
      opts.log.error({ err, monitor_id: opts.run.monitor_id }, 'runMonitorCheck rejected');
      result = {
        monitor_id: opts.run.monitor_id, type: opts.run.check.type, scheduled_at: opts.scheduled_at, started_at, finished_at: new Date().toISOString(),
        success: false, error: String((err as Error)?.message ?? err).slice(0, 2000), error_class: 'internal', assertions: [], output: null,
      } as CheckResult;
    }
    const envelope = { result_id: newId('result'), task_id: null, ...result } as MonitorResultEnvelope;
    try {
      opts.deliver(envelope);
    } catch (err) {
      opts.log.error({ err, result_id: envelope.result_id }, 'could not write result to the outbox; result lost');
    }
  };
}
