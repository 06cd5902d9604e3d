/** Options of {@link batchCalls}. */
export interface BatchOptions<I> {
  /** Largest batch, in units of {@link weight} (a larger backlog takes several statements). */
  max: number;
  /** An item's share of `max` (default 1 per item). One item heavier than `max` still goes alone. */
  weight?: (item: I) => number;
  /** Batches run at once (default 1: every call made while one runs goes into the next). */
  in_flight?: number;
}

interface Waiting<I, O> { item: I; resolve: (out: O) => void; reject: (err: unknown) => void }

/**
 * Callers of one batch resumed per event-loop turn, at most. Each resumes its own work at once
 * (a hello's `welcome`, an upgrade's 101 answer: a socket write each), so 500 resumed together
 * kept the loop from accepting connections for 100-150 ms while thousands of nodes reconnected;
 * the kernel's accept queue (net.core.somaxconn, 4096) then overflowed and each dropped
 * connection retried its handshake a second or more later.
 */
export const RESUME_SLICE = 64;

/** Settle each waiter with `settle`, RESUME_SLICE per event-loop turn (I/O is polled in between). */
function settleInSlices<I, O>(batch: Array<Waiting<I, O>>, settle: (w: Waiting<I, O>, i: number) => void): void {
  const slice = (from: number): void => {
    const to = Math.min(batch.length, from + RESUME_SLICE);
    for (let i = from; i < to; i++) settle(batch[i]!, i);
    if (to < batch.length) setImmediate(slice, to);
  };
  slice(0);
}

/**
 * Turn a statement over many items into a call per item, like a group commit and without a timer:
 * the first call starts a statement on the next turn of the event loop, and every call made while
 * one is in flight goes into the following one. A burst of N callers then costs a few statements
 * (and a few WAL flushes, for writes) instead of N, while a lone caller waits one event-loop turn.
 * A batch's callers resume RESUME_SLICE per event-loop turn, so a large burst does not hold the loop.
 * @param run executes one batch; must return one output per input, in input order. When it
 *   throws, every caller of that batch gets the error.
 * @returns a function that settles with its item's output once the batch holding it finished
 */
export function batchCalls<I, O>(run: (items: I[]) => Promise<O[]>, opts: BatchOptions<I>): (item: I) => Promise<O> {
  const weight = opts.weight ?? (() => 1);
  const in_flight = opts.in_flight ?? 1;
  const queue: Array<Waiting<I, O>> = [];
  let running = 0;
  let scheduled = false;

  /** Run one batch and settle its callers; its end starts the next. */
  const runBatch = async (batch: Array<Waiting<I, O>>): Promise<void> => {
    try {
      const out = await run(batch.map((w) => w.item));
      if (out.length !== batch.length) throw new Error(`batch returned ${out.length} outputs for ${batch.length} inputs`);
      settleInSlices(batch, (w, i) => w.resolve(out[i]!));
    } catch (err) {
      settleInSlices(batch, (w) => w.reject(err));
    } finally {
      running--;
      start();
    }
  };

  /** Start batches from the queue while fewer than `in_flight` run. */
  const start = (): void => {
    while (queue.length > 0 && running < in_flight) {
      const batch: Array<Waiting<I, O>> = [];
      let n = 0;
      while (queue.length > 0 && (batch.length === 0 || n + weight(queue[0]!.item) <= opts.max)) {
        const w = queue.shift()!;
        batch.push(w);
        n += weight(w.item);
      }
      running++;
      // The next batch's statement starts while this one's callers resume, slice by slice.
      void runBatch(batch);
    }
  };

  return (item: I) => new Promise<O>((resolve, reject) => {
    queue.push({ item, resolve, reject });
    if (scheduled || running >= in_flight) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      start();
    });
  });
}
