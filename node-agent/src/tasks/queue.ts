/** A unit of work: runs once, gets a signal that aborts on cancel or shutdown, must not reject. */
export type Job = (signal: AbortSignal) => Promise<void>;

/** Outcome of {@link TaskQueue.submit}. */
export type Submitted =
  | { accepted: true; duplicate: boolean }
  | { accepted: false; reason: string };

interface Entry {
  key: string;
  job: Job;
  controller: AbortController;
}

export interface QueueOptions {
  /** Jobs running at once (config `concurrency`, default 32). */
  concurrency: number;
  /** Jobs waiting beyond those running; more are rejected (config `queue_max`, default 256). */
  queue_max: number;
}

/**
 * The node's task runner core (issue 5 item 4): at most `concurrency` jobs at once, at most
 * `queue_max` waiting, anything beyond rejected at once with a reason (never a hang). Jobs are
 * keyed (a task id, or `monitor:<id>`): a key already queued or running is not run twice.
 * {@link TaskQueue.cancel} aborts a job's signal; a queued job then starts at once so it can report
 * itself cancelled. {@link TaskQueue.drain} is the bounded part of a soft shutdown.
 */
export class TaskQueue {
  readonly #o: QueueOptions;
  readonly #waiting: Entry[] = [];
  readonly #running = new Map<string, Entry>();
  #closed: string | null = null;
  readonly #idle = new Set<() => void>();

  constructor(opts: QueueOptions) {
    this.#o = opts;
  }

  /**
   * Queue `job` under `key`. Rejections: `queue full (N tasks)`, or the reason given to
   * {@link TaskQueue.close}. A key already present is accepted as a duplicate and not run again.
   */
  submit(key: string, job: Job): Submitted {
    if (this.#closed) return { accepted: false, reason: this.#closed };
    if (this.#running.has(key) || this.#waiting.some((e) => e.key === key)) return { accepted: true, duplicate: true };
    if (this.#running.size >= this.#o.concurrency && this.#waiting.length >= this.#o.queue_max) {
      return { accepted: false, reason: `queue full (${this.#o.queue_max} tasks)` };
    }
    this.#waiting.push({ key, job, controller: new AbortController() });
    this.#next();
    return { accepted: true, duplicate: false };
  }

  /** Abort job `key` if queued or running. @returns whether it was found. */
  cancel(key: string, reason = 'cancelled'): boolean {
    const running = this.#running.get(key);
    if (running) {
      running.controller.abort(new Error(reason));
      return true;
    }
    const i = this.#waiting.findIndex((e) => e.key === key);
    if (i < 0) return false;
    const [entry] = this.#waiting.splice(i, 1);
    entry!.controller.abort(new Error(reason));
    this.#start(entry!); // finishes at once as cancelled; no slot needed
    return true;
  }

  /** Counts for logs and status. */
  get size(): { running: number; waiting: number } {
    return { running: this.#running.size, waiting: this.#waiting.length };
  }

  /** Refuse new jobs from now on with `reason` (e.g. `agent shutting down`). */
  close(reason: string): void {
    this.#closed = reason;
  }

  /**
   * Soft-shutdown step (issue 5 item 3): stop accepting, let running and queued jobs finish for up to
   * `grace_ms`, then abort the rest and wait up to `abort_wait_ms` for them to settle.
   * @returns how many jobs had to be aborted.
   */
  async drain(grace_ms: number, abort_wait_ms = 3000): Promise<number> {
    this.close('agent shutting down');
    if (await this.#waitIdle(grace_ms)) return 0;
    const left = [...this.#running.values(), ...this.#waiting];
    for (const e of left) e.controller.abort(new Error('agent shutting down'));
    for (const e of this.#waiting.splice(0)) this.#start(e);
    await this.#waitIdle(abort_wait_ms);
    return left.length;
  }

  #waitIdle(timeout_ms: number): Promise<boolean> {
    const idle = () => this.#running.size === 0 && this.#waiting.length === 0;
    if (idle()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const check = () => {
        if (!idle()) return;
        clearTimeout(timer);
        this.#idle.delete(check);
        resolve(true);
      };
      const timer = setTimeout(() => { this.#idle.delete(check); resolve(idle()); }, timeout_ms);
      this.#idle.add(check);
    });
  }

  #next(): void {
    while (this.#running.size < this.#o.concurrency && this.#waiting.length > 0) this.#start(this.#waiting.shift()!);
  }

  #start(entry: Entry): void {
    this.#running.set(entry.key, entry);
    let job: Promise<void>;
    try {
      job = entry.job(entry.controller.signal);
    } catch (err) {
      job = Promise.reject(err);
    }
    void job.catch(() => undefined).finally(() => {
      if (this.#running.get(entry.key) === entry) this.#running.delete(entry.key);
      this.#next();
      for (const w of [...this.#idle]) w();
    });
  }
}
