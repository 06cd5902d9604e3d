/*
 * A time bound joined to a caller's cancellation, without Node's timeout and composite signals.
 * `AbortSignal.any([signal, AbortSignal.timeout(ms)])` reaches the same answer, but Node (20 and
 * 22) holds each timeout signal through a WeakRef and a FinalizationRegistry, and each composite
 * signal's sources through WeakRefs, and V8's young-generation collections (scavenges) keep what a
 * WeakRef points to: every signal of a running check, its listeners and what they close over (the
 * check's sockets, buffers and partial result) outlived the scavenge and was moved to the old
 * generation. Measured on the agent's HTTP probe, 50 at a time: 1.6 MB promoted per scavenge and
 * 3.4 ms pauses with them, 0.7 MB and 2.0 ms with this (docs/benchmarks.md "Probe deadlines
 * without WeakRefs").
 */

/** What {@link deadlineSignal} returns. */
export interface DeadlineSignal {
  /**
   * Aborts when the parent aborts (with the parent's reason) or when the time runs out (with a
   * DOMException named `TimeoutError`, the reason AbortSignal.timeout gives), whichever first.
   */
  signal: AbortSignal;
  /** True once the time ran out before the parent aborted. */
  timedOut(): boolean;
  /** Stop the timer and leave the parent (call it when the work ends; more calls do nothing). */
  dispose(): void;
}

/**
 * A signal bounded by `timeout_ms` and by `parent`: one AbortController, one timer (unref'd, as
 * AbortSignal.timeout's: it never keeps the process alive) and one listener on `parent`, all
 * released by `dispose()`.
 *
 * @param parent     the caller's cancellation (task cancelled, shutdown); none: the time alone
 * @param timeout_ms the bound, ms (a finite number ≥ 0)
 * @throws RangeError when `timeout_ms` is not a finite number ≥ 0
 */
export function deadlineSignal(parent: AbortSignal | undefined, timeout_ms: number): DeadlineSignal {
  if (!Number.isFinite(timeout_ms) || timeout_ms < 0) throw new RangeError(`timeout_ms must be a finite number >= 0, got ${timeout_ms}`);
  const controller = new AbortController();
  let expired = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const stopTimer = () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
  };
  const onParentAbort = () => {
    stopTimer();
    controller.abort(parent!.reason);
  };
  const dispose = () => {
    stopTimer();
    parent?.removeEventListener('abort', onParentAbort);
  };
  if (parent?.aborted) {
    controller.abort(parent.reason);
  } else {
    parent?.addEventListener('abort', onParentAbort, { once: true });
    timer = setTimeout(() => {
      timer = null;
      expired = true;
      parent?.removeEventListener('abort', onParentAbort);
      controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    }, timeout_ms);
    timer.unref();
  }
  return { signal: controller.signal, timedOut: () => expired, dispose };
}
