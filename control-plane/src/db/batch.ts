/** Options of {@link batchCalls}. */
export interface BatchOptions<I> {
  /** Largest batch, in units of {@link weight} (a larger backlog takes several statements). */
  max: number;
  /** An item's share of `max` (default 1 per item). One item heavier than `max` still goes alone. */
  weight?: (item: I) => number;
}

interface Waiting<I, O> { item: I; resolve: (out: O) => void; reject: (err: unknown) => void }

/**
 * Turn a statement over many items into a call per item, like a group commit and without a timer:
 * the first call starts a statement on the next turn of the event loop, and every call made while
 * one is in flight goes into the following one. A burst of N callers then costs a few statements
 * (and a few WAL flushes, for writes) instead of N, while a lone caller waits one event-loop turn.
 * @param run executes one batch; must return one output per input, in input order. When it
 *   throws, every caller of that batch gets the error.
 * @returns a function that settles with its item's output once the batch holding it finished
 */
export function batchCalls<I, O>(run: (items: I[]) => Promise<O[]>, opts: BatchOptions<I>): (item: I) => Promise<O> {
  const weight = opts.weight ?? (() => 1);
  const queue: Array<Waiting<I, O>> = [];
  let flushing = false;

  const flush = async (): Promise<void> => {
    while (queue.length > 0) {
      const batch: Array<Waiting<I, O>> = [];
      let n = 0;
      while (queue.length > 0 && (batch.length === 0 || n + weight(queue[0]!.item) <= opts.max)) {
        const w = queue.shift()!;
        batch.push(w);
        n += weight(w.item);
      }
      try {
        const out = await run(batch.map((w) => w.item));
        if (out.length !== batch.length) throw new Error(`batch returned ${out.length} outputs for ${batch.length} inputs`);
        batch.forEach((w, i) => w.resolve(out[i]!));
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
    flushing = false;
  };

  return (item: I) => new Promise<O>((resolve, reject) => {
    queue.push({ item, resolve, reject });
    if (flushing) return;
    flushing = true;
    setImmediate(() => void flush());
  });
}
