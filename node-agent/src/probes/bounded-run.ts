/*
 * The time bound and cancellation shared by the probe runner (check-run.ts, ad-hoc probes) and the
 * monitor check runner (checks/runner.ts): one abort controller, one timer, one grace period, one
 * wording per cause, so a timed-out probe and a timed-out monitor check read alike.
 */

/** Why the runner stopped the work itself. */
export type StopReason = 'timeout' | 'cancelled';

/** How a bounded run ended (see {@link runBounded}). */
export type Bounded<T> =
  /** The work resolved; `stopped` is set when it did so after the runner aborted it. */
  | { ended: 'returned'; value: T; stopped: StopReason | null; stop_error: string | null }
  /** The work rejected (or threw before returning a promise). */
  | { ended: 'threw'; error: unknown; stopped: StopReason | null; stop_error: string | null }
  /** Aborted, and it did not settle within the grace period. */
  | { ended: 'late'; stopped: StopReason; stop_error: string }
  /** `signal` was already aborted: the work never started. */
  | { ended: 'not_started'; stopped: 'cancelled'; stop_error: string };

export interface BoundOptions {
  /** The run's time budget, ms: the work's own timeout is expected to use the same value. */
  timeout_ms: number;
  /** External cancellation (task cancelled, node shutting down). */
  signal?: AbortSignal;
  /** How long the work may take to settle after the abort, ms (default 1000). */
  grace_ms?: number;
}

const DEFAULT_GRACE_MS = 1000;

/**
 * How long after `timeout_ms` the runner's own bound fires, ms. A probe or check bounds its wait
 * by the same `timeout_ms` (dns, tcp, http; ping per packet) and says what it waited for ("no
 * reply from 198.18.0.53:53 within 2000 ms"); the runner's bound is the backstop for work that
 * overruns ("check timed out after …"). Both firing at the same moment made the same silent
 * target read one way on one node and the other way on another.
 */
export const RUNNER_BOUND_AFTER_MS = 250;

/** The message the runner gives for its own stop (the abort reason's). */
export function stopMessage(reason: StopReason, timeout_ms: number): string {
  return reason === 'timeout' ? `check timed out after ${timeout_ms} ms` : 'check cancelled';
}

/**
 * Run `work` with a signal that aborts RUNNER_BOUND_AFTER_MS after `opts.timeout_ms` or when
 * `opts.signal` aborts (whichever first; the reason is an Error with {@link stopMessage}). Never
 * rejects: the caller turns the {@link Bounded} outcome into its result. After an abort the work
 * has `grace_ms` to settle (a partial result) before the outcome is `late`.
 */
export async function runBounded<T>(work: (signal: AbortSignal) => Promise<T>, opts: BoundOptions): Promise<Bounded<T>> {
  if (opts.signal?.aborted) return { ended: 'not_started', stopped: 'cancelled', stop_error: stopMessage('cancelled', opts.timeout_ms) };
  const controller = new AbortController();
  let stopped: StopReason | null = null;
  let onStop: (() => void) | null = null;
  const stoppedNow = new Promise<void>((resolve) => { onStop = resolve; });
  const abort = (why: StopReason) => {
    if (stopped) return;
    stopped = why;
    controller.abort(new Error(stopMessage(why, opts.timeout_ms)));
    onStop?.();
  };
  const timer = setTimeout(() => abort('timeout'), opts.timeout_ms + RUNNER_BOUND_AFTER_MS);
  const onExternal = () => abort('cancelled');
  opts.signal?.addEventListener('abort', onExternal, { once: true });
  const stopError = () => (stopped ? stopMessage(stopped, opts.timeout_ms) : null);
  try {
    let pending: Promise<T>;
    try {
      pending = work(controller.signal);
    } catch (err) {
      pending = Promise.reject(err);
    }
    const running = pending.then((value) => ({ value }), (error: unknown) => ({ error }));
    const grace_ms = opts.grace_ms ?? DEFAULT_GRACE_MS;
    const late = stoppedNow.then(() => new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), grace_ms)));
    const got = await Promise.race([running, late]);
    if (got === 'late') return { ended: 'late', stopped: stopped!, stop_error: stopError()! };
    if ('error' in got) return { ended: 'threw', error: got.error, stopped, stop_error: stopError() };
    return { ended: 'returned', value: got.value, stopped, stop_error: stopError() };
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onExternal);
  }
}
