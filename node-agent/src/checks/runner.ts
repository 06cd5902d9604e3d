import type { CheckFailureClass, CheckResult, CheckResultOf, MonitorCheckSpec, NodeCheckType } from '@vantage/shared-protocol';
import type { Logger } from 'pino';
import { runBounded } from '../probes/bounded-run.js';
import { ProbeInputError } from '../probes/input-error.js';
import type { TargetPolicy } from '../probes/target-policy.js';
import type { Check, CheckMap } from './types.js';

export interface MonitorRunOptions {
  /** Bound on the whole run, ms. */
  timeout_ms: number;
  /** External cancellation (node shutting down). */
  signal?: AbortSignal;
  policy: TargetPolicy;
  log: Logger;
  /** How long a check may take to return its partial result after the abort, ms (default 1000). */
  grace_ms?: number;
}

/** What a monitor run is about: the monitor and its check (an assignment carries both). */
export interface MonitorRun {
  monitor_id: string;
  check: MonitorCheckSpec;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 2000);

/**
 * Run one check of monitor `run` for the round `scheduled_at` with `checks[run.check.type]`:
 * the runner's half of docs/api/checks.md "Result". Never rejects; the time bound, cancellation and
 * their wording are the probe runner's (probes/bounded-run.ts: the check's own timeout speaks
 * first, the runner's bound fires RUNNER_BOUND_AFTER_MS later). Classes it sets itself: a throw →
 * `internal` (a ProbeInputError → `rejected`) with `output: null`; the timeout → `timeout`;
 * `opts.signal` → `cancelled`; the check's partial output is kept if it returns within
 * `grace_ms` of the abort.
 */
export async function runMonitorCheckWith(checks: Partial<CheckMap>, run: MonitorRun, scheduled_at: string, opts: MonitorRunOptions): Promise<CheckResult> {
  const type = run.check.type;
  const started = new Date();
  const log = opts.log.child({ module: `check.${type}`, monitor_id: run.monitor_id });
  const finish = (r: { success: boolean; error: string | null; error_class: CheckFailureClass | null; assertions?: CheckResult['assertions']; output: unknown }): CheckResult => ({
    monitor_id: run.monitor_id, type, scheduled_at, started_at: started.toISOString(), finished_at: new Date().toISOString(),
    success: r.success, error: r.error, error_class: r.error_class, assertions: r.assertions ?? [], output: r.output,
  }) as CheckResultOf<NodeCheckType>;

  const check = checks[type] as Check<NodeCheckType> | undefined;
  if (!check) return finish({ success: false, error: `no check for type ${type}`, error_class: 'internal', output: null });
  const got = await runBounded((signal) => check.run(run.check.target, run.check.config as never, { signal, policy: opts.policy, log, monitor_id: run.monitor_id, scheduled_at }), opts);

  switch (got.ended) {
    case 'not_started':
      return finish({ success: false, error: got.stop_error, error_class: 'cancelled', output: null });
    case 'late':
      log.warn({ target: run.check.target, grace_ms: opts.grace_ms }, 'check did not stop after abort');
      return finish({ success: false, error: got.stop_error, error_class: got.stopped, output: null });
    case 'threw':
      if (got.stopped) return finish({ success: false, error: got.stop_error, error_class: got.stopped, output: null });
      if (got.error instanceof ProbeInputError) return finish({ success: false, error: message(got.error), error_class: 'rejected', output: null });
      log.error({ err: got.error, target: run.check.target }, 'check threw');
      return finish({ success: false, error: message(got.error), error_class: 'internal', output: null });
    case 'returned':
      // Aborted by us: whatever the check says, the cause is ours; its partial output is kept.
      if (got.stopped) return finish({ success: false, error: got.stop_error, error_class: got.stopped, assertions: got.value.assertions, output: got.value.output });
      return finish(got.value);
  }
}
