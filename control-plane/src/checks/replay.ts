import type { MonitorState } from '@vantage/shared-protocol';
import type { Verdict } from './verdict.js';

/*
 * A monitor's state as a function of time (docs/architecture/checks.md "State"): the verdicts of its
 * rounds in the order of their start, overlaid by what users and maintenance windows set (paused,
 * maintenance, and back to pending). Replaying from any point gives the same answer whatever order
 * the rounds were judged in, so results that arrive late simply fill their rounds and the replay
 * from the earliest changed round yields the corrected history.
 */

/** A judged round: when it started (epoch ms), its verdict, and whether a maintenance window covered it. */
export interface ReplayRound {
  at_ms: number;
  verdict: Verdict;
  maintenance?: boolean;
}

/** A state set from outside the verdicts (pause, resume, maintenance) at `at_ms`. */
export interface ReplayManual {
  at_ms: number;
  to_state: MonitorState;
}

/** A change of state caused by `rounds[round_index]`: its verdict, or `maintenance` for a round in a window. */
export interface ReplayTransition {
  at_ms: number;
  from: MonitorState;
  to: Verdict | 'maintenance';
  round_index: number;
}

/** Outcome of {@link replayStates}. */
export interface Replay {
  /** Verdict transitions, in time order. */
  transitions: ReplayTransition[];
  /** Per round: false when it fell while the monitor was paused or in maintenance, or in a window (not counted in uptime). */
  counted: boolean[];
  /** The state after the last event. */
  final: MonitorState;
}

/** States set from outside during which verdicts do not move the state. */
const OVERLAYS: ReadonlySet<MonitorState> = new Set(['paused', 'maintenance']);

/** Rounds in a row without any report that move a monitor to `no_data` (docs/api/monitors.md "No data"). */
export const NO_DATA_ROUNDS = 2;

/**
 * Walk `rounds` and `manual` (each sorted by time) from `initial`, the state just before the first
 * of them. A manual change takes effect at its time (before a round starting at the same instant);
 * while it holds the state paused or maintenance, verdicts are recorded but do not change it and
 * their rounds are not counted; a resume (back to pending) or the end of maintenance lets the next
 * verdict set the state again. A round in a maintenance window is not counted and moves the state
 * to maintenance (a transition of its own) until a round outside any window is judged. A `no_data`
 * round (no report by its deadline) moves the state only when it is the NO_DATA_ROUNDS-th counted
 * one in a row (a single silent round leaves the state as it was); the first round with a report
 * sets the state from its verdict again. Otherwise a verdict that differs from the state is a
 * transition.
 * @param initial_held whether `initial` was set by a manual change (default: it is paused or
 *   maintenance); false for a maintenance state that window rounds set
 * @param silent_before counted `no_data` rounds in a row just before the first of `rounds`
 */
export function replayStates(initial: MonitorState, rounds: readonly ReplayRound[], manual: readonly ReplayManual[], initial_held = OVERLAYS.has(initial), silent_before = 0): Replay {
  const transitions: ReplayTransition[] = [];
  const counted: boolean[] = [];
  let state = initial;
  // `maintenance` set by a manual change holds until the next manual change; one set by window rounds, until a round outside.
  let held = initial_held;
  let silent = silent_before;
  let m = 0;
  rounds.forEach((round, i) => {
    while (m < manual.length && manual[m]!.at_ms <= round.at_ms) {
      state = manual[m++]!.to_state;
      held = OVERLAYS.has(state);
      silent = 0;
    }
    if (held || round.maintenance) {
      silent = 0;
      counted.push(false);
      if (!held && state !== 'maintenance') {
        transitions.push({ at_ms: round.at_ms, from: state, to: 'maintenance', round_index: i });
        state = 'maintenance';
      }
      return;
    }
    counted.push(true);
    silent = round.verdict === 'no_data' ? silent + 1 : 0;
    if (round.verdict === 'no_data' && silent < NO_DATA_ROUNDS) return;
    if (round.verdict !== state) {
      transitions.push({ at_ms: round.at_ms, from: state, to: round.verdict, round_index: i });
      state = round.verdict;
    }
  });
  while (m < manual.length) state = manual[m++]!.to_state;
  return { transitions, counted, final: state };
}
