import { newId, type CheckSpec, type ResultEnvelope } from '@vantage/shared-protocol';
import type { Logger } from 'pino';
import type { CheckRun, RunOptions } from '../probes/check-run.js';
import type { TargetPolicy } from '../probes/target-policy.js';
import type { Job } from './queue.js';

/** The probe engine's entry point (probes/runner.ts `runCheck`), injected so tests can use their own. Never rejects. */
export type RunCheckFn = (check: CheckSpec, opts: RunOptions) => Promise<CheckRun>;

/** Who a result belongs to: an ad-hoc task or a monitor assignment (exactly one; messages.ts). */
export type ResultOwner = { task_id: string } | { monitor_id: string };

export interface CheckJobOptions {
  check: CheckSpec;
  /** Bound on the whole check, ms. */
  timeout_ms: number;
  owner: ResultOwner;
  runCheck: RunCheckFn;
  policy: TargetPolicy;
  log: Logger;
  /** Where the finished result goes: the outbox (written before it is sent). */
  deliver: (result: ResultEnvelope) => void;
}

/**
 * A queue job that runs one check and delivers its ResultEnvelope: the CheckRun plus a new
 * `r_` result id made here, when it was produced (docs/architecture/node-agent.md, outbox and delivery), and its owner. A runCheck
 * that breaks its never-reject contract still yields a failed result (class `internal`).
 */
export function checkJob(opts: CheckJobOptions): Job {
  return async (signal) => {
    const started_at = new Date().toISOString();
    let run: CheckRun;
    try {
      run = await opts.runCheck(opts.check, { timeout_ms: opts.timeout_ms, signal, policy: opts.policy, log: opts.log });
    } catch (err) {
      opts.log.error({ err }, 'runCheck rejected');
      run = {
        type: opts.check.type, started_at, finished_at: new Date().toISOString(), success: false,
        error: String((err as Error)?.message ?? err).slice(0, 2000), error_class: 'internal', output: null,
      } as CheckRun;
    }
    const owner = 'task_id' in opts.owner ? { task_id: opts.owner.task_id, monitor_id: null } : { task_id: null, monitor_id: opts.owner.monitor_id };
    const result = { ...run, result_id: newId('result'), ...owner } as ResultEnvelope;
    try {
      opts.deliver(result);
    } catch (err) {
      opts.log.error({ err, result_id: result.result_id }, 'could not write result to the outbox; result lost');
    }
  };
}
