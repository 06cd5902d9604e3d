import type { CheckSpec, FailureClass, ProbeOutputs, ProbeType } from '@vantage/shared-protocol';
import type { Logger } from 'pino';
import { runBounded } from './bounded-run.js';
import { ProbeInputError } from './input-error.js';
import type { TargetPolicy } from './target-policy.js';
import type { Probe, ProbeOutcome } from './types.js';

/**
 * One finished check: a ResultEnvelope (node-protocol/messages.ts) minus result_id/task_id/
 * monitor_id, which the caller adds. Times are ISO 8601 UTC strings. `output` is null only when
 * the probe produced nothing (it threw, or did not stop within the grace period after an abort).
 */
export type CheckRun = {
  [T in ProbeType]: {
    type: T;
    started_at: string;
    finished_at: string;
    success: boolean;
    error: string | null;
    error_class: FailureClass | null;
    output: ProbeOutputs[T] | null;
  };
}[ProbeType];

/** The CheckRun of one check type (what runCheck returns for a check of type T). */
export type CheckRunOf<T extends ProbeType> = Extract<CheckRun, { type: T }>;

export interface RunOptions {
  /** Bound on the whole check, ms (the task's `timeout_ms`). */
  timeout_ms: number;
  /** External cancellation (task cancelled, node shutting down). */
  signal?: AbortSignal;
  policy: TargetPolicy;
  log: Logger;
  /**
   * How long a probe may take to return its partial result after the abort, ms (default 1000).
   * After this the runner answers alone with `output: null`.
   */
  grace_ms?: number;
}

/** A probe per type, as registry.ts PROBES provides them. */
export type ProbeMap = Partial<{ [T in ProbeType]: Probe<T> }>;

function errorMessage(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.slice(0, 2000);
}

/**
 * Run one check through the probe `probes[check.type]` (only the runner turns an exception into a
 * failed result). The probe's ctx.signal aborts RUNNER_BOUND_AFTER_MS after `timeout_ms` (the
 * probe's own timeout speaks first: bounded-run.ts) or when `opts.signal` aborts.
 *
 * Never rejects. Outcome classes set by the runner:
 * - the probe threw → `{ success: false, error_class: 'internal', error: message, output: null }`,
 *   or `'rejected'` when it threw a ProbeInputError (the check cannot run on this node);
 * - the timeout fired before the probe finished → `error_class: 'timeout'` (the probe's partial
 *   output kept if it returned within `grace_ms`, else null);
 * - `opts.signal` aborted first → `error_class: 'cancelled'`, likewise.
 */
export async function runCheckWith<C extends CheckSpec>(probes: ProbeMap, check: C, opts: RunOptions): Promise<CheckRunOf<C['type']>> {
  const started = new Date();
  const log = opts.log.child({ module: `probe.${check.type}` });
  const finish = (outcome: Omit<CheckRun, 'type' | 'started_at' | 'finished_at'>): CheckRunOf<C['type']> =>
    ({ type: check.type, started_at: started.toISOString(), finished_at: new Date().toISOString(), ...outcome }) as CheckRunOf<C['type']>;

  const probe = probes[check.type] as Probe<ProbeType> | undefined;
  if (!probe) return finish({ success: false, error: `no probe for type ${check.type}`, error_class: 'internal', output: null });
  const got = await runBounded((signal) => probe.run(check.target, check.params as never, { signal, policy: opts.policy, log }), opts);

  switch (got.ended) {
    case 'not_started':
      return finish({ success: false, error: got.stop_error, error_class: 'cancelled', output: null });
    case 'late':
      log.warn({ target: check.target, grace_ms: opts.grace_ms }, 'probe did not stop after abort');
      return finish({ success: false, error: got.stop_error, error_class: got.stopped, output: null });
    case 'threw':
      if (got.stopped) return finish({ success: false, error: got.stop_error, error_class: got.stopped, output: null });
      if (got.error instanceof ProbeInputError) return finish({ success: false, error: errorMessage(got.error), error_class: 'rejected', output: null });
      log.error({ err: got.error, target: check.target }, 'probe threw');
      return finish({ success: false, error: errorMessage(got.error), error_class: 'internal', output: null });
    case 'returned': {
      const out = got.value as ProbeOutcome<ProbeType>;
      // The probe returned because we aborted it: whatever it says, the cause is ours.
      if (got.stopped) return finish({ success: false, error: got.stop_error, error_class: got.stopped, output: out.output });
      return finish({ success: out.success, error: out.error, error_class: out.error_class, output: out.output });
    }
  }
}
