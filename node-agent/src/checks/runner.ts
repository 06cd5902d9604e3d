import type { CheckFailureClass, CheckResult, CheckResultOf, MonitorCheckSpec, NodeCheckType } from '@vantage/shared-protocol';
import type { Logger } from 'pino';
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

const DEFAULT_GRACE_MS = 1000;

const message = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 2000);

/**
 * Run one check of monitor `run` for the round `scheduled_at` with `checks[run.check.type]`:
 * the runner's half of docs/api/checks.md "Result". Never rejects; the classes it sets itself, as
 * the probe runner does (probes/check-run.ts): a throw → `internal` (a ProbeInputError →
 * `rejected`) with `output: null`; the timeout → `timeout`; `opts.signal` → `cancelled`; the
 * check's partial output is kept if it returns within `grace_ms` of the abort.
 */
export async function runMonitorCheckWith(checks: Partial<CheckMap>, run: MonitorRun, scheduled_at: string, opts: MonitorRunOptions): Promise<CheckResult> {
  const type = run.check.type;
  const started = new Date();
  const log = opts.log.child({ module: `check.${type}`, monitor_id: run.monitor_id });
  const controller = new AbortController();
  let reason: 'timeout' | 'cancelled' | null = null;
  let onStop: (() => void) | null = null;
  const stopped = new Promise<void>((resolve) => { onStop = resolve; });
  const abort = (why: 'timeout' | 'cancelled') => {
    if (reason) return;
    reason = why;
    controller.abort(new Error(why === 'timeout' ? `check timed out after ${opts.timeout_ms} ms` : 'check cancelled'));
    onStop?.();
  };
  const timer = setTimeout(() => abort('timeout'), opts.timeout_ms);
  const onExternal = () => abort('cancelled');
  if (opts.signal?.aborted) abort('cancelled');
  else opts.signal?.addEventListener('abort', onExternal, { once: true });

  const finish = (r: { success: boolean; error: string | null; error_class: CheckFailureClass | null; assertions?: CheckResult['assertions']; output: unknown }): CheckResult => ({
    monitor_id: run.monitor_id, type, scheduled_at, started_at: started.toISOString(), finished_at: new Date().toISOString(),
    success: r.success, error: r.error, error_class: r.error_class, assertions: r.assertions ?? [], output: r.output,
  }) as CheckResultOf<NodeCheckType>;

  try {
    const check = checks[type] as Check<NodeCheckType> | undefined;
    if (!check) return finish({ success: false, error: `no check for type ${type}`, error_class: 'internal', output: null });
    if (reason === 'cancelled') return finish({ success: false, error: 'check cancelled', error_class: 'cancelled', output: null });
    let pending;
    try {
      pending = check.run(run.check.target, run.check.config as never, { signal: controller.signal, policy: opts.policy, log, monitor_id: run.monitor_id, scheduled_at });
    } catch (err) {
      pending = Promise.reject(err);
    }
    const running = pending.catch((err: unknown) => ({ thrown: err }));
    const grace_ms = opts.grace_ms ?? DEFAULT_GRACE_MS;
    const late = stopped.then(() => new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), grace_ms)));
    const got = await Promise.race([running, late]);
    if (got === 'late') {
      log.warn({ target: run.check.target, grace_ms }, 'check did not stop after abort');
      return finish({ success: false, error: message(controller.signal.reason), error_class: reason ?? 'internal', output: null });
    }
    if ('thrown' in got) {
      if (reason) return finish({ success: false, error: message(controller.signal.reason), error_class: reason, output: null });
      if (got.thrown instanceof ProbeInputError) return finish({ success: false, error: message(got.thrown), error_class: 'rejected', output: null });
      log.error({ err: got.thrown, target: run.check.target }, 'check threw');
      return finish({ success: false, error: message(got.thrown), error_class: 'internal', output: null });
    }
    // Aborted by us: whatever the check says, the cause is ours; its partial output is kept.
    if (reason) return finish({ success: false, error: message(controller.signal.reason), error_class: reason, assertions: got.assertions, output: got.output });
    return finish(got);
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onExternal);
  }
}
