import type { TracerouteCheckOutput, TracerouteOutput } from '@vantage/shared-protocol';
import { tracerouteProbe } from '../probes/traceroute.js';
import type { Probe } from '../probes/types.js';
import { failed, passed, type Check } from './types.js';

/** Monitors whose previous path a node remembers at most (the oldest is forgotten first). */
export const TRACEROUTE_MEMORY_MAX = 10_000;

/** The hop addresses of a traceroute, in hop order; null for a silent hop. */
export function pathOf(output: TracerouteOutput): (string | null)[] {
  return output.hops.map((h) => h.address);
}

/**
 * True when two rounds' paths differ: a different number of hops, or a hop where both rounds
 * got an answer from different addresses. A hop silent in either round is not a change (routers
 * that rate-limit ICMP answer some rounds and not others).
 */
export function pathChanged(previous: readonly (string | null)[], current: readonly (string | null)[]): boolean {
  if (previous.length !== current.length) return true;
  return previous.some((address, i) => address !== null && current[i] !== null && address !== current[i]);
}

/**
 * `traceroute` check (docs/api/checks.md): the traceroute probe with the monitor's max_hops,
 * protocol, probes_per_hop, timeout_ms and ip_version; up when the target is reached.
 * `path_changed` compares the hop addresses with this node's previous round of the same
 * monitor (kept in memory: null on the first round after the agent starts).
 */
export function createTracerouteCheck(probe: Probe<'traceroute'> = tracerouteProbe): Check<'traceroute'> {
  const previous = new Map<string, (string | null)[]>();
  return {
    type: 'traceroute',
    async run(target, config, ctx) {
      const got = await probe.run(target, config, ctx);
      const path = pathOf(got.output);
      const before = previous.get(ctx.monitor_id);
      const output: TracerouteCheckOutput = { ...got.output, path_changed: before === undefined || path.length === 0 ? null : pathChanged(before, path) };
      if (path.length > 0) {
        previous.delete(ctx.monitor_id);
        previous.set(ctx.monitor_id, path);
        if (previous.size > TRACEROUTE_MEMORY_MAX) previous.delete(previous.keys().next().value!);
      }
      if (!got.success) return failed(output, got.error ?? 'traceroute failed', got.error_class ?? 'target');
      if (!output.destination_reached) {
        return failed(output, `${target} not reached within ${config.max_hops} hops`, 'target');
      }
      return passed(output);
    },
  };
}
