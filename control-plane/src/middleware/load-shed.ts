import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Context, MiddlewareHandler } from 'hono';
import type { Config } from '../config/index.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';

/** Limits of {@link loadShedding} (config/load-shed.ts); 0 disables a limit. */
export type LoadShedOptions = Pick<Config, 'shed_max_inflight_creations' | 'shed_max_inflight_requests' | 'shed_event_loop_delay_ms' | 'shed_retry_after_s'>;

/** Why a request was shed: the signal, its limit and the value that passed it. */
export interface ShedReason { signal: 'inflight_creations' | 'inflight_requests' | 'event_loop_delay'; limit: number; value: number }

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

  constructor(readonly windows: DelayWindows = DELAY_WINDOWS) {
    if (!(windows.window_ms > 0 && Number.isInteger(windows.windows) && windows.windows >= 1)) throw new Error(`LoadMonitor: bad delay windows ${JSON.stringify(windows)}`);
    this.#delay.enable();
    this.#timer = setInterval(() => this.#endWindow(), windows.window_ms).unref();
  }

  #endWindow(): void {
    // A window with no sample at all was one long block: its length is its delay.
    const p99_ms = this.#delay.count > 0 ? this.#delay.percentile(99) / 1e6 : this.windows.window_ms;
    this.#delay.reset();
    this.#p99_ms.push(Math.max(0, p99_ms - RESOLUTION_MS));
    if (this.#p99_ms.length > this.windows.windows) this.#p99_ms.shift();
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
  }
}

/**
 * Why the request `creates` (work for nodes or not) must be refused now, or null to admit it:
 * any request once `shed_max_inflight_requests` are in flight; a probe creation once
 * `shed_max_inflight_creations` creations are in flight or the event-loop delay, sustained
 * ({@link LoadMonitor.eventLoopDelayMs}), passed `shed_event_loop_delay_ms`.
 */
export function shedReason(load: { inflight: number; creations: number; delay_ms: () => number }, creates: boolean, o: LoadShedOptions): ShedReason | null {
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
  return null;
}

/**
 * Admission control (docs/architecture/control-plane.md "Load shedding"): past the instance's
 * capacity a request is answered at once with 503 UNAVAILABLE, `Retry-After:
 * shed_retry_after_s` and `details {signal, limit, value}`, before it costs a database query,
 * instead of joining a queue whose latency climbs to seconds. Probe creation is shed first (it is
 * what brings more work: tasks, node results, polls); polls of probes already accepted go on so
 * they finish. A request counts as in flight until its handler returns (an SSE stream only while
 * it starts).
 * @param monitor the load signals (tests pass their own)
 */
export function loadShedding(opts: LoadShedOptions, monitor = new LoadMonitor()): MiddlewareHandler<AppEnv> {
  const delay_ms = () => monitor.eventLoopDelayMs();
  return async function loadSheddingMiddleware(c, next) {
    const creates = createsWork(c);
    const reason = shedReason({ inflight: monitor.inflight, creations: monitor.creations, delay_ms }, creates, opts);
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
