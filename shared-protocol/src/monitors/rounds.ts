/*
 * Monitor rounds (docs/api/monitors.md "Rounds"): a monitor's runs are aligned to the wall clock,
 * so every node it is placed on runs round k at the same instant. The control plane and the node
 * agent both use these functions, so they always agree on when a round starts.
 */

/**
 * FNV-1a, 32 bits, over the UTF-16 code units of `text` (ids are ASCII, so these are its bytes).
 * Stable across processes, platforms and versions: a monitor's phase never moves.
 */
function fnv1a32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/**
 * The phase of a monitor's rounds, ms: `fnv1a32(monitor_id) mod (interval_s * 1000)`, in
 * [0, interval_s * 1000). Derived from the id so that monitors of one interval spread over it
 * instead of all starting on the minute, and so that it never changes while the id and interval
 * stay the same (a node computes the same phase as the control plane).
 * @example roundPhaseMs('m_01jd3k6w9z4q8r2t7v5x1y3b6c', 60) // some value in 0..59999
 */
export function roundPhaseMs(monitor_id: string, interval_s: number): number {
  return fnv1a32(monitor_id) % (interval_s * 1000);
}

/**
 * When round `k` of a monitor starts, epoch ms: `phase_ms + k * interval_s * 1000`. Round 0 is
 * the first one at or after the Unix epoch; every node runs round k at this instant (on the
 * control plane's clock; agents correct for their measured clock offset).
 */
export function roundStartMs(phase_ms: number, interval_s: number, k: number): number {
  return phase_ms + k * interval_s * 1000;
}

/** The round running at `t_ms` (epoch ms): the last k whose start is at or before `t_ms`. */
export function roundIndexAt(phase_ms: number, interval_s: number, t_ms: number): number {
  return Math.floor((t_ms - phase_ms) / (interval_s * 1000));
}

/**
 * The first round that starts strictly after `t_ms`: `{ k, at_ms }` (epoch ms). A node asks this
 * for the next run to schedule.
 */
export function nextRound(phase_ms: number, interval_s: number, t_ms: number): { k: number; at_ms: number } {
  const k = roundIndexAt(phase_ms, interval_s, t_ms) + 1;
  return { k, at_ms: roundStartMs(phase_ms, interval_s, k) };
}
