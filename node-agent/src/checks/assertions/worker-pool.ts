import { Worker } from 'node:worker_threads';

/*
 * A worker pool: one thread that runs jobs one at a time, in order, under a deadline and a heap
 * limit (the agent's pattern sandbox, the control plane's password strength check). Past either the thread is terminated and replaced;
 * only the task that was running learns why, and the tasks queued behind it run on the fresh
 * thread. The event loop never waits for a job.
 */

/** One piece of work for the worker, and what to do with its messages. */
export interface WorkerTask {
  /** The message the worker runs (the pool adds an `id`). */
  job: Record<string, unknown>;
  /** A progress message of the job: the task's deadline starts again from it. */
  step(message: unknown): void;
  /** The job's last message: the task is settled. */
  done(message: unknown): void;
  /**
   * The job met a bound (deadline, heap, worker failure) or the pool closed; `error` says which
   * in words for an assertion's detail. Return the job that runs what remains of the task (it
   * goes first to a fresh worker), or null when the task is settled. Each call must bring the
   * task nearer to settling (the pool calls it again on each failure, and in a loop on close).
   */
  fail(error: string): Record<string, unknown> | null;
}

export interface WorkerPoolOptions {
  /**
   * The worker's program: plain CommonJS evaluated as a string (it loads without the TypeScript
   * loader, from the sources and from a build alike). It posts `{ ready: true }` once loaded, then
   * answers each job `{ id, ... }` with `{ id, step }` messages and one `{ id, done }`.
   */
  source: string;
  /** How failures name the worker, e.g. `the pattern worker`. */
  name: string;
  /** Advice appended in parentheses to a job's deadline and memory failures, when given. */
  hints?: { deadline?: string; memory?: string };
  /** Longest a job (or one step of it) may run, ms, counted from when it starts running. */
  deadline_ms: number;
  /** Old-generation heap limit of the worker, MB (Worker resourceLimits.maxOldGenerationSizeMb). */
  heap_max_mb: number;
  /** The worker's `workerData`: library paths and limits (worker-source.ts). */
  worker_data: Record<string, unknown>;
}

export interface WorkerPool {
  /** Queue `task`; its callbacks are called later, never from inside `run`. */
  run(task: WorkerTask): void;
  /** Stop the worker; queued tasks fail with `sandbox closed`. The pool can be used again after. */
  close(): Promise<void>;
}

/** Young-generation limit of the worker, MB: enough for V8 to allocate quickly, bounded. */
const YOUNG_GENERATION_MB = 16;

interface Entry {
  id: number;
  task: WorkerTask;
  job: Record<string, unknown>;
  /** When the running job (or its current step) started, performance.now(); null while queued. */
  started_at: number | null;
}

type Message = { ready: true } | { id: number; step: unknown } | { id: number; done: unknown };

/** Create the pool; the thread starts with the first task and does not keep the process alive when idle. */
export function createWorkerPool(options: WorkerPoolOptions): WorkerPool {
  const { deadline_ms, heap_max_mb, name, hints = {} } = options;
  const advice = (hint: string | undefined) => (hint ? ` (${hint})` : '');
  const queue: Entry[] = [];
  let worker: Worker | null = null;
  /** The current worker has loaded its libraries (its start-up is not counted against a job). */
  let ready = false;
  let timer: NodeJS.Timeout | null = null;
  let nextId = 1;

  const armHead = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    const head = queue[0];
    if (!head || !ready) return;
    head.started_at ??= performance.now();
    timer = setTimeout(onDeadline, Math.max(0, head.started_at + deadline_ms - performance.now()));
  };
  // The worker keeps the process alive only while it has work.
  const holdWhileBusy = () => (queue.length > 0 ? worker?.ref() : worker?.unref());
  const send = (e: Entry) => worker!.postMessage({ ...e.job, id: e.id });

  const describe = (err: Error & { code?: string }) => (err.code === 'ERR_WORKER_OUT_OF_MEMORY'
    ? `used more than ${heap_max_mb} MB of memory, stopped${advice(hints.memory)}`
    : `${name} failed: ${err.message.slice(0, 200)}`);

  const spawn = (): Worker => {
    const w = new Worker(options.source, {
      eval: true, workerData: options.worker_data,
      resourceLimits: { maxOldGenerationSizeMb: heap_max_mb, maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    });
    ready = false;
    w.unref();
    w.on('message', (m: Message) => {
      if (worker !== w) return; // a replaced worker's last words
      if ('ready' in m) {
        ready = true;
        armHead();
        return;
      }
      // Jobs run in order, so only the head can be answering.
      const head = queue[0];
      if (!head || head.id !== m.id) return;
      if ('step' in m) {
        head.started_at = performance.now();
        head.task.step(m.step);
      } else {
        queue.shift();
        head.task.done(m.done);
      }
      armHead();
      holdWhileBusy();
    });
    w.on('error', (err) => {
      if (worker === w) restart(describe(err));
    });
    w.on('exit', (code) => {
      if (worker === w) restart(`${name} stopped (exit code ${code})`);
    });
    return w;
  };

  /** Fail the running job with `error`, replace the worker, and resend what is queued. */
  const restart = (error: string) => {
    const old = worker;
    worker = null;
    ready = false;
    void old?.terminate();
    const head = queue[0];
    if (head) {
      const rest = head.task.fail(error);
      if (rest) {
        head.job = rest;
        head.started_at = null;
      } else {
        queue.shift();
      }
    }
    if (queue.length > 0) {
      worker = spawn();
      for (const e of queue) send(e);
    }
    armHead();
    holdWhileBusy();
  };

  function onDeadline() {
    timer = null;
    restart(`took longer than ${deadline_ms} ms, stopped${advice(hints.deadline)}`);
  }

  return {
    run(task) {
      const entry: Entry = { id: nextId++, task, job: task.job, started_at: null };
      queue.push(entry);
      worker ??= spawn();
      send(entry);
      holdWhileBusy();
      if (queue.length === 1) armHead();
    },
    async close() {
      if (timer) clearTimeout(timer);
      timer = null;
      const w = worker;
      worker = null;
      for (const e of queue.splice(0)) while (e.task.fail('sandbox closed') !== null);
      await w?.terminate();
    },
  };
}
