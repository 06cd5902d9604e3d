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
  /**
   * How long (ms) and how many keys submitted with `once` are remembered after they were accepted
   * (defaults {@link ONCE_MEMORY}); the clock is `now` (default Date.now).
   */
  once_memory?: { ttl_ms: number; max: number };
  now?: () => number;
}

/**
 * Default memory of `once` keys: 15 minutes covers any task a control plane can still re-send
 * (task.run timeout_ms is at most 300 s, re-sent only before its deadline = timeout + grace);
 * 50 000 keys (a few MB) covers a node finishing 50 tasks a second for that long.
 */
export const ONCE_MEMORY = { ttl_ms: 15 * 60_000, max: 50_000 };

/**
 * The node's task runner core: at most `concurrency` jobs at once, at most
 * `queue_max` waiting, anything beyond rejected at once with a reason (never a hang). Jobs are
 * keyed (a task id, or `monitor:<id>`): a key already queued or running is not run twice, and a
 * key submitted with `once` (an ad-hoc task: the control plane may send its task.run again) is not
 * run again after it finished either, for as long as {@link QueueOptions.once_memory} keeps it.
 * {@link TaskQueue.cancel} aborts a job's signal; a queued job then starts at once so it can report
 * itself cancelled. {@link TaskQueue.drain} is the bounded part of a soft shutdown.
 */
export class TaskQueue {
  readonly #o: QueueOptions;
  readonly #waiting: Entry[] = [];
  readonly #running = new Map<string, Entry>();
  #closed: string | null = null;
  readonly #idle = new Set<() => void>();
  /** Keys accepted with `once` (or {@link TaskQueue.remember}ed) → when, oldest first. */
  readonly #once = new Map<string, number>();
  readonly #onceMemory: { ttl_ms: number; max: number };
  readonly #now: () => number;

  constructor(opts: QueueOptions) {
    this.#o = opts;
    this.#onceMemory = opts.once_memory ?? ONCE_MEMORY;
    this.#now = opts.now ?? Date.now;
  }

  /**
   * Queue `job` under `key`. Rejections: `queue full (N tasks)`, or the reason given to
   * {@link TaskQueue.close}. A key already queued or running, or (with `once`) accepted before and
   * still remembered, is accepted as a duplicate and not run again, even while closing: the job
   * that holds it will report.
   */
  submit(key: string, job: Job, opts: { once?: boolean } = {}): Submitted {
    if (this.#running.has(key) || this.#waiting.some((e) => e.key === key)) return { accepted: true, duplicate: true };
    if (opts.once && this.#ranOnce(key)) return { accepted: true, duplicate: true };
    if (this.#closed) return { accepted: false, reason: this.#closed };
    if (this.#running.size >= this.#o.concurrency && this.#waiting.length >= this.#o.queue_max) {
      return { accepted: false, reason: `queue full (${this.#o.queue_max} tasks)` };
    }
    if (opts.once) this.remember([key]);
    this.#waiting.push({ key, job, controller: new AbortController() });
    this.#next();
    return { accepted: true, duplicate: false };
  }

  /**
   * Treat `keys` as run already: a later `once` submit of one is a duplicate (e.g. at start-up, the
   * tasks whose result is in the outbox from before a restart).
   */
  remember(keys: Iterable<string>): void {
    const now = this.#now();
    for (const key of keys) {
      this.#once.delete(key); // re-insert: the Map stays in remembering order
      this.#once.set(key, now);
    }
    const { ttl_ms, max } = this.#onceMemory;
    for (const [key, at] of this.#once) {
      if (this.#once.size <= max && now - at < ttl_ms) break;
      this.#once.delete(key);
    }
  }

  #ranOnce(key: string): boolean {
    const at = this.#once.get(key);
    return at !== undefined && this.#now() - at < this.#onceMemory.ttl_ms;
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

  /** Keys of every job queued or running (the ad-hoc task ids a reconnecting agent still holds). */
  keys(): string[] {
    return [...this.#running.keys(), ...this.#waiting.map((e) => e.key)];
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
   * Soft-shutdown step: stop accepting, let running and queued jobs finish for up to
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
