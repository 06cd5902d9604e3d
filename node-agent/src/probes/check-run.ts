import type { CheckSpec, FailureClass, ProbeOutputs, ProbeType } from '@vantage/shared-protocol';
import type { Logger } from 'pino';
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

const DEFAULT_GRACE_MS = 1000;

/**
 * How long after `timeout_ms` the runner's own bound fires, ms. A probe bounds its wait by the
 * same `timeout_ms` (dns, tcp, http; ping per packet) and says what it waited for ("no reply from
 * 198.18.0.53:53 within 2000 ms"); the runner's bound is the backstop for a probe that overruns
 * ("check timed out after …"). Both firing at the same moment made the same silent target read
 * one way on one node and the other way on another.
 */
const RUNNER_BOUND_AFTER_MS = 250;

function errorMessage(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.slice(0, 2000);
}

/**
 * Run one check through the probe `probes[check.type]` (only the runner turns an exception into a
 * failed result). The probe's ctx.signal aborts RUNNER_BOUND_AFTER_MS after `timeout_ms` (the
 * probe's own timeout speaks first) or when `opts.signal` aborts.
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
  const timer = setTimeout(() => abort('timeout'), opts.timeout_ms + RUNNER_BOUND_AFTER_MS);
  const onExternal = () => abort('cancelled');
  if (opts.signal?.aborted) abort('cancelled');
  else opts.signal?.addEventListener('abort', onExternal, { once: true });

  const finish = (outcome: Omit<CheckRun, 'type' | 'started_at' | 'finished_at'>): CheckRunOf<C['type']> =>
    ({ type: check.type, started_at: started.toISOString(), finished_at: new Date().toISOString(), ...outcome }) as CheckRunOf<C['type']>;

  try {
    const probe = probes[check.type] as Probe<ProbeType> | undefined;
    if (!probe) return finish({ success: false, error: `no probe for type ${check.type}`, error_class: 'internal', output: null });
    if (reason === 'cancelled') return finish({ success: false, error: 'check cancelled', error_class: 'cancelled', output: null });

    let started: Promise<ProbeOutcome<ProbeType>>;
    try {
      started = probe.run(check.target, check.params as never, { signal: controller.signal, policy: opts.policy, log });
    } catch (err) {
      started = Promise.reject(err);
    }
    const running = started.catch((err: unknown) => ({ thrown: err }));
    const grace_ms = opts.grace_ms ?? DEFAULT_GRACE_MS;
    const late = stopped.then(() => new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), grace_ms)));
    const got = await Promise.race([running, late]);

    if (got === 'late') {
      log.warn({ target: check.target, grace_ms }, 'probe did not stop after abort');
      return finish({ success: false, error: controller.signal.reason?.message ?? 'aborted', error_class: reason ?? 'internal', output: null });
    }
    if ('thrown' in got) {
      if (reason) return finish({ success: false, error: errorMessage(controller.signal.reason), error_class: reason, output: null });
      if (got.thrown instanceof ProbeInputError) return finish({ success: false, error: errorMessage(got.thrown), error_class: 'rejected', output: null });
      log.error({ err: got.thrown, target: check.target }, 'probe threw');
      return finish({ success: false, error: errorMessage(got.thrown), error_class: 'internal', output: null });
    }
    if (reason) {
      // The probe returned because we aborted it: whatever it says, the cause is ours.
      return finish({ success: false, error: errorMessage(controller.signal.reason), error_class: reason, output: got.output });
    }
    return finish({ success: got.success, error: got.error, error_class: got.error_class, output: got.output });
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onExternal);
  }
}
