import type { MonitorType } from '@vantage/shared-protocol';

/*
 * What the check history needs to know per monitor type: the one place that dispatches on it.
 */

type Output = Record<string, unknown> | null;

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null);
const field = (key: string) => (o: Output) => num(o?.[key]);

/** traceroute: the destination's first answer on the last hop, when it was reached. */
function tracerouteMs(o: Output): number | null {
  if (!o || o.destination_reached !== true || !Array.isArray(o.hops) || o.hops.length === 0) return null;
  const last = o.hops[o.hops.length - 1] as { rtts_ms?: unknown[] } | undefined;
  for (const rtt of last?.rtts_ms ?? []) if (num(rtt) !== null) return rtt as number;
  return null;
}

interface CheckTraits {
  /**
   * The check's response time from its output (docs/api/checks.md outputs), ms; null when none was
   * measured (a timeout, a refused connection).
   */
  responseMs(output: Output): number | null;
  /** How long one run may take from its round's start, ms, from the monitor's config (defaults filled). */
  runMs(config: Record<string, unknown>): number;
}

const DEFAULT_RUN_MS = 30_000;
const timeout = (config: Record<string, unknown>, fallback = DEFAULT_RUN_MS) => num(config.timeout_ms) ?? fallback;

const http: CheckTraits = { responseMs: field('response_ms'), runMs: (c) => timeout(c) };
const agent: CheckTraits = { responseMs: field('latency_ms'), runMs: (c) => timeout(c) };

/** Per monitor type: response time and run budget (the one map from type to these facts). */
export const CHECK_TRAITS: Record<MonitorType, CheckTraits> = {
  http, https: http, keyword: http,
  llm_endpoint: agent, tool_api: agent, rag: agent,
  // count echo requests interval_ms apart, the last one waited for timeout_ms.
  ping: { responseMs: field('rtt_avg_ms'), runMs: (c) => (num(c.count) ?? 4) * (num(c.interval_ms) ?? 1000) + timeout(c, 5000) },
  tcp: { responseMs: field('connect_ms'), runMs: (c) => timeout(c, 5000) },
  dns: { responseMs: field('query_ms'), runMs: (c) => timeout(c, 5000) },
  // every hop waits up to timeout_ms per probe
  traceroute: { responseMs: tracerouteMs, runMs: (c) => (num(c.max_hops) ?? 30) * (num(c.probes_per_hop) ?? 3) * timeout(c, 2000) },
  ssl_expiry: { responseMs: field('handshake_ms'), runMs: (c) => timeout(c, 10_000) },
  rbl: { responseMs: () => null, runMs: (c) => timeout(c, 5000) * 2 },
  browser: { responseMs: field('load_ms'), runMs: (c) => timeout(c, 30_000) },
  heartbeat: { responseMs: () => null, runMs: () => 0 },
  domain_expiry: { responseMs: () => null, runMs: () => DEFAULT_RUN_MS },
};

/**
 * When a round may be judged without the nodes that have not reported, ms after its start: the
 * run's budget (capped at the monitor's interval: a run never outlasts its round) plus `grace_ms`
 * for delivery. Results arriving after it are late: they still fill the round, which is judged again.
 */
export function roundDeadlineMs(type: MonitorType, config: Record<string, unknown>, interval_s: number, grace_ms: number): number {
  return Math.min(CHECK_TRAITS[type].runMs(config), interval_s * 1000) + grace_ms;
}
