/**
 * An in-process wake-up for the verdict job (jobs.ts startCheckJobs): check ingest (ingest.ts)
 * calls `wake()` once a batch it stored has committed and left a round judgeable (complete, past
 * its deadline, or judged before and changed since: decide.db.ts claimMonitors), so the round is
 * judged at once instead of at the job's next `checks_decide_interval_ms` poll. Only this process
 * hears it: the poll stays, for other instances' results and for rounds whose deadline passes
 * with no further result. Wakes before the job listens, or while it is stopped, do nothing.
 */
export interface VerdictWake {
  /** A round became judgeable (its batch has committed). Never throws, never waits. */
  wake(): void;
  /** Called on every `wake()` from now on (the verdict job; one listener). @returns to stop listening */
  listen(fn: () => void): () => void;
}

/** A new verdict wake (one per process: shared by the check store and the verdict job). */
export function createVerdictWake(): VerdictWake {
  let listener: (() => void) | null = null;
  return {
    wake() {
      listener?.();
    },
    listen(fn) {
      listener = fn;
      return () => {
        if (listener === fn) listener = null;
      };
    },
  };
}
