/*
 * The verdict of one round of a monitor (docs/api/monitors.md "Rounds and verdicts"): every node the
 * monitor is placed on runs round k at the same instant; once all of them reported, or the round's
 * deadline passed, the round is judged from the nodes that did report. A node that did not report
 * is unknown, never failed.
 */

/** What a round says about the monitor: `no_data` when no node reported by its deadline. */
export type Verdict = 'up' | 'degraded' | 'down' | 'no_data';

/** Largest `down_quorum` a monitor config may set (the plans' largest node_count). */
export const DOWN_QUORUM_MAX = 100;

/**
 * How many failed nodes make a round `down`: the monitor's `config.down_quorum` when set, else
 * more than half of the placed nodes (floor(placed / 2) + 1); never more than the placed nodes
 * (a quorum above them could never be met) and at least 1.
 * @param placed nodes the monitor was placed on for the round (at least those that reported)
 */
export function roundQuorum(placed: number, down_quorum?: number | null): number {
  const n = Math.max(1, placed);
  const q = down_quorum != null && Number.isInteger(down_quorum) && down_quorum > 0 ? down_quorum : Math.floor(n / 2) + 1;
  return Math.min(q, n);
}

/**
 * The verdict of a round from its reports: `up` when no reporting node failed, `down` when at least
 * `quorum` failed, `degraded` in between; `no_data` when no node reported (the caller asks only
 * once the round's deadline passed or all its nodes reported).
 */
export function roundVerdict(failed: number, reported: number, quorum: number): Verdict {
  if (reported <= 0) return 'no_data';
  if (failed <= 0) return 'up';
  return failed >= quorum ? 'down' : 'degraded';
}
