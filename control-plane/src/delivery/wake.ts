/**
 * An in-process wake-up for the delivery worker: whoever queues a delivery outside a transaction
 * calls `wake()` so the worker claims it at once. With a database server the worker is also
 * woken by LISTEN/NOTIFY from every instance (NOTIFY is delivered at commit); in embedded mode
 * (no NOTIFY through PGlite) this and the poll are the only wake-ups. Several wakes before the
 * worker looks coalesce into one.
 */
export interface WakeSignal {
  wake(): void;
  /** Resolve at the next wake (or at once if one came since the last wait), or after `ms`. */
  wait(ms: number): Promise<void>;
}

/** A new wake signal (one per worker). */
export function createWakeSignal(): WakeSignal {
  let pending = false;
  let resolve: (() => void) | null = null;
  return {
    wake() {
      pending = true;
      const r = resolve;
      resolve = null;
      r?.();
    },
    wait(ms) {
      if (pending) {
        pending = false;
        return Promise.resolve();
      }
      return new Promise<void>((done) => {
        const timer = setTimeout(() => { resolve = null; done(); }, ms);
        resolve = () => { clearTimeout(timer); pending = false; done(); };
      });
    },
  };
}
