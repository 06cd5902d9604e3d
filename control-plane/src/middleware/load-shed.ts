import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Context, MiddlewareHandler } from 'hono';
import type { Config } from '../config/index.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';

/** Limits of {@link loadShedding} (config/load-shed.ts); 0 disables a limit. */
export type LoadShedOptions = Pick<Config, 'shed_max_inflight_creations' | 'shed_max_inflight_requests' | 'shed_event_loop_delay_ms' | 'shed_retry_after_s'>
  & Partial<Pick<Config, 'shed_db_latency_ms' | 'shed_result_latency_ms'>>;

/** Why a request was shed: the signal, its limit and the value that passed it. */
export interface ShedReason { signal: 'inflight_creations' | 'inflight_requests' | 'event_loop_delay' | 'db_latency' | 'result_latency'; limit: number; value: number }

/**
 * How the event-loop delay is judged: the 99th percentile of each `window_ms` window, and the
 * delay counted is the lowest of the last `windows` windows, so only delay sustained over all of
 * them sheds. A single late window (start-up work: migrations, compiling, the embedded database's
 * first queries, placement catching up) does not, and nothing is judged before `windows` full
 * windows were seen since the monitor started.
 */
export interface DelayWindows { window_ms: number; windows: number }

/** Default {@link DelayWindows}: 1 s windows, sustained over 5 of them. */
export const DELAY_WINDOWS: DelayWindows = { window_ms: 1000, windows: 5 };

/** The histogram's resolution, ms; it counts it as delay, so it is taken off each percentile. */
const RESOLUTION_MS = 10;

/** A request that creates work for nodes: probe creation (POST /v1/probe/http, /ping, …). */
export function createsWork(c: Context): boolean {
  return c.req.method === 'POST' && c.req.path.startsWith('/v1/probe/');
}

/**
 * The load of this process as admission control sees it: requests being handled, probe creations
 * among them, and the event-loop delay (perf_hooks monitorEventLoopDelay, 99th percentile per
 * window, read from a timer at the end of each window: see {@link DelayWindows}). The timer does
 * not keep the process alive; {@link close} stops it.
 */
export class LoadMonitor {
  inflight = 0;
  creations = 0;
  readonly #delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  readonly #p99_ms: number[] = [];
  readonly #timer: NodeJS.Timeout;
  readonly #db: DbLatency | null;
  readonly #store_ms: number[] = [];

  /**
   * @param db_probe one cheap round trip through the application's database pool (`SELECT 1`):
   *   timed while probe creations arrive, it is the database signal ({@link dbLatencyMs})
   * @param result_store_ms the slowest store of node results since the last call, ms (ResultSink
   *   storeLatencyMs), read at the end of each window: the result signal ({@link resultLatencyMs})
   */
  constructor(readonly windows: DelayWindows = DELAY_WINDOWS, db_probe?: () => Promise<unknown>, private readonly result_store_ms?: () => number) {
    if (!(windows.window_ms > 0 && Number.isInteger(windows.windows) && windows.windows >= 1)) throw new Error(`LoadMonitor: bad delay windows ${JSON.stringify(windows)}`);
    this.#delay.enable();
    this.#db = db_probe ? new DbLatency(db_probe, windows) : null;
    this.#timer = setInterval(() => this.#endWindow(), windows.window_ms).unref();
  }

  #endWindow(): void {
    // A window with no sample at all was one long block: its length is its delay.
    const p99_ms = this.#delay.count > 0 ? this.#delay.percentile(99) / 1e6 : this.windows.window_ms;
    this.#delay.reset();
    this.#p99_ms.push(Math.max(0, p99_ms - RESOLUTION_MS));
    if (this.#p99_ms.length > this.windows.windows) this.#p99_ms.shift();
    this.#db?.endWindow();
    if (this.result_store_ms) {
      this.#store_ms.push(this.result_store_ms());
      if (this.#store_ms.length > this.windows.windows) this.#store_ms.shift();
    }
  }

  /**
   * How long storing node results took, sustained over the last `windows` windows: per window the
   * slowest store (one still in flight counts for its age), the lowest of the windows, ms. 0
   * without a source, and until that many windows were seen. A window in which no result was
   * stored counts 0: an idle pipeline is not a slow one.
   */
  resultLatencyMs(): number {
    return this.#store_ms.length < this.windows.windows ? 0 : Math.min(...this.#store_ms);
  }

  /**
   * The database round trip sustained over the last `windows` windows, ms: per window the
   * slowest probe (one still unanswered counts for its age), the lowest of the windows. 0 without
   * a probe, and until that many windows were timed. Timing starts on the first call (the first
   * probe creation), so an instance nobody creates probes on sends no probe queries.
   */
  dbLatencyMs(): number {
    return this.#db?.sustainedMs() ?? 0;
  }

  /**
   * The event-loop delay sustained over the last `windows` windows (the lowest of their 99th
   * percentiles), ms; 0 until that many windows were seen.
   */
  eventLoopDelayMs(): number {
    return this.#p99_ms.length < this.windows.windows ? 0 : Math.min(...this.#p99_ms);
  }

  /** Stop measuring. */
  close(): void {
    clearInterval(this.#timer);
    this.#delay.disable();
    this.#db?.stop();
  }
}

/** Pause between two database probes, ms (one in flight at a time). */
const DB_PROBE_GAP_MS = 200;
/** Probing stops when no probe creation asked for the signal this long, ms (and starts afresh on the next). */
const DB_PROBE_IDLE_MS = 30_000;

/**
 * Timing of a database probe query: how long a query waits for a pooled connection plus its round
 * trip, which is what every request and result write of this instance waits too. Probes run one
 * at a time, DB_PROBE_GAP_MS apart, from the first {@link sustainedMs} call until none came for
 * DB_PROBE_IDLE_MS (an instance nobody creates probes on sends no probe queries).
 */
class DbLatency {
  #started = false;
  #asked_at = 0;
  #stopped = false;
  #in_flight_since = 0;
  #window_max_ms = 0;
  readonly #max_ms: number[] = [];
  #timer: NodeJS.Timeout | null = null;

  constructor(private readonly probe: () => Promise<unknown>, private readonly windows: DelayWindows) {}

  #run(): void {
    if (this.#stopped) return;
    const t0 = performance.now();
    this.#in_flight_since = t0;
    this.probe().then(() => {}, () => {}).finally(() => {
      this.#in_flight_since = 0;
      this.#window_max_ms = Math.max(this.#window_max_ms, performance.now() - t0);
      if (performance.now() - this.#asked_at > DB_PROBE_IDLE_MS) {
        this.#started = false;
        this.#max_ms.length = 0;
        this.#window_max_ms = 0;
        return;
      }
      if (!this.#stopped) this.#timer = setTimeout(() => this.#run(), DB_PROBE_GAP_MS).unref();
    });
  }

  endWindow(): void {
    if (!this.#started) return;
    const waiting = this.#in_flight_since ? performance.now() - this.#in_flight_since : 0;
    this.#max_ms.push(Math.max(this.#window_max_ms, waiting));
    this.#window_max_ms = 0;
    if (this.#max_ms.length > this.windows.windows) this.#max_ms.shift();
  }

  sustainedMs(): number {
    this.#asked_at = performance.now();
    if (!this.#started) {
      this.#started = true;
      this.#run();
    }
    return this.#max_ms.length < this.windows.windows ? 0 : Math.min(...this.#max_ms);
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
  }
}

/**
 * Why the request `creates` (work for nodes or not) must be refused now, or null to admit it:
 * any request once `shed_max_inflight_requests` are in flight; a probe creation once
 * `shed_max_inflight_creations` creations are in flight, the event-loop delay, sustained
 * ({@link LoadMonitor.eventLoopDelayMs}), passed `shed_event_loop_delay_ms`, or the database
 * round trip, sustained ({@link LoadMonitor.dbLatencyMs}), passed `shed_db_latency_ms`, or the
 * store of node results, sustained ({@link LoadMonitor.resultLatencyMs}), passed
 * `shed_result_latency_ms` (the probe pipeline is behind its latency budget).
 */
export function shedReason(load: { inflight: number; creations: number; delay_ms: () => number; db_ms?: () => number; store_ms?: () => number }, creates: boolean, o: LoadShedOptions): ShedReason | null {
  if (o.shed_max_inflight_requests > 0 && load.inflight >= o.shed_max_inflight_requests) {
    return { signal: 'inflight_requests', limit: o.shed_max_inflight_requests, value: load.inflight };
  }
  if (!creates) return null;
  if (o.shed_max_inflight_creations > 0 && load.creations >= o.shed_max_inflight_creations) {
    return { signal: 'inflight_creations', limit: o.shed_max_inflight_creations, value: load.creations };
  }
  const delay_ms = o.shed_event_loop_delay_ms > 0 ? load.delay_ms() : 0;
  if (o.shed_event_loop_delay_ms > 0 && delay_ms >= o.shed_event_loop_delay_ms) {
    return { signal: 'event_loop_delay', limit: o.shed_event_loop_delay_ms, value: Math.round(delay_ms) };
  }
  const db_limit = o.shed_db_latency_ms ?? 0;
  const db_ms = db_limit > 0 && load.db_ms ? load.db_ms() : 0;
  if (db_limit > 0 && db_ms >= db_limit) return { signal: 'db_latency', limit: db_limit, value: Math.round(db_ms) };
  const store_limit = o.shed_result_latency_ms ?? 0;
  const store_ms = store_limit > 0 && load.store_ms ? load.store_ms() : 0;
  if (store_limit > 0 && store_ms >= store_limit) return { signal: 'result_latency', limit: store_limit, value: Math.round(store_ms) };
  return null;
}

/**
 * Admission control (docs/architecture/control-plane.md "Load shedding"): past the instance's
 * capacity, or its database's (a probe query through the pool slow for seconds: the database is
 * the bottleneck while this process has CPU to spare, so the event loop stays on time), or the
 * probe pipeline's (node results waiting past the latency budget to be stored), a request is answered at once with 503 UNAVAILABLE, `Retry-After:
 * shed_retry_after_s` and `details {signal, limit, value}`, before it costs a database query,
 * instead of joining a queue whose latency climbs to seconds. Probe creation is shed first (it is
 * what brings more work: tasks, node results, polls); polls of probes already accepted go on so
 * they finish. A request counts as in flight until its handler returns (an SSE stream only while
 * it starts).
 * @param monitor the load signals (tests pass their own)
 */
export function loadShedding(opts: LoadShedOptions, monitor = new LoadMonitor()): MiddlewareHandler<AppEnv> {
  const delay_ms = () => monitor.eventLoopDelayMs();
  const db_ms = () => monitor.dbLatencyMs();
  const store_ms = () => monitor.resultLatencyMs();
  return async function loadSheddingMiddleware(c, next) {
    const creates = createsWork(c);
    const reason = shedReason({ inflight: monitor.inflight, creations: monitor.creations, delay_ms, db_ms, store_ms }, creates, opts);
    if (reason) {
      c.get('log')?.debug({ shed: reason }, 'request shed');
      throw new ApiError('UNAVAILABLE', `the control plane is at capacity (${reason.signal.replace(/_/g, ' ')} ${reason.value}, limit ${reason.limit}); retry after ${opts.shed_retry_after_s} s`,
        { ...reason }, { 'Retry-After': String(opts.shed_retry_after_s) });
    }
    monitor.inflight++;
    if (creates) monitor.creations++;
    try {
      await next();
    } finally {
      monitor.inflight--;
      if (creates) monitor.creations--;
    }
  };
}
