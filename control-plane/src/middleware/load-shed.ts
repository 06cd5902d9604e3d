import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Context, MiddlewareHandler } from 'hono';
import type { Config } from '../config/index.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';

/** Limits of {@link loadShedding} (config/load-shed.ts); 0 disables a limit. */
export type LoadShedOptions = Pick<Config, 'shed_max_inflight_creations' | 'shed_max_inflight_requests' | 'shed_event_loop_delay_ms' | 'shed_retry_after_s'>;

/** Why a request was shed: the signal, its limit and the value that passed it. */
export interface ShedReason { signal: 'inflight_creations' | 'inflight_requests' | 'event_loop_delay'; limit: number; value: number }

/** Window over which the event-loop delay percentile is taken, ms. */
const DELAY_WINDOW_MS = 1000;

/** A request that creates work for nodes: probe creation (POST /v1/probe/http, /ping, …). */
export function createsWork(c: Context): boolean {
  return c.req.method === 'POST' && c.req.path.startsWith('/v1/probe/');
}

/**
 * The load of this process as admission control sees it: requests being handled, probe creations
 * among them, and the event-loop delay (perf_hooks monitorEventLoopDelay, 99th percentile of the
 * last DELAY_WINDOW_MS, sampled lazily when asked).
 */
export class LoadMonitor {
  inflight = 0;
  creations = 0;
  readonly #delay = monitorEventLoopDelay({ resolution: 10 });
  #sampled_at = Date.now();
  #p99_ms = 0;

  constructor() {
    this.#delay.enable();
  }

  /** 99th percentile of the event-loop delay over the last full window, ms. */
  eventLoopDelayMs(now = Date.now()): number {
    if (now - this.#sampled_at >= DELAY_WINDOW_MS) {
      // The histogram counts the timer's own resolution as delay: take it off.
      this.#p99_ms = Math.max(0, this.#delay.percentile(99) / 1e6 - 10);
      this.#delay.reset();
      this.#sampled_at = now;
    }
    return this.#p99_ms;
  }
}

/**
 * Why the request `creates` (work for nodes or not) must be refused now, or null to admit it:
 * any request once `shed_max_inflight_requests` are in flight; a probe creation once
 * `shed_max_inflight_creations` creations are in flight or the event-loop delay passed
 * `shed_event_loop_delay_ms`.
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
