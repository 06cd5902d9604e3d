import { nextRound, roundPhaseMs, type Assignment } from '@vantage/shared-protocol';

/** Upper bound on one monitor run, ms, whatever its interval (ours; the protocol sets none). */
export const ASSIGNMENT_RUN_MAX_MS = 60_000;

/** Time allowed for one run of `a`, ms: its interval, capped at ASSIGNMENT_RUN_MAX_MS (runs never overlap). */
export function assignmentTimeoutMs(a: Assignment): number {
  return Math.min(a.interval_s * 1000, ASSIGNMENT_RUN_MAX_MS);
}

/** A timer that fires this early (the measured clock offset moved) waits again for its round, ms. */
const EARLY_MS = 2;

interface Slot {
  body: string;
  timer: NodeJS.Timeout | null;
}

export interface SchedulerOptions {
  /** Called at each round of an assignment with the round's start (ISO 8601 UTC): the agent queues the check run. */
  fire: (a: Assignment, scheduled_at: string) => void;
  /**
   * The control plane's time, epoch ms: this node's clock corrected by its measured offset
   * (clock.ts ClockOffset.serverNow), so that rounds start together on every node. Default Date.now.
   */
  now?: () => number;
}

/** The phase of `a`'s rounds, ms: as sent, else derived from its id (shared-protocol monitors/rounds.ts). */
export function assignmentPhaseMs(a: Assignment): number {
  const interval_ms = a.interval_s * 1000;
  return (a.phase_ms ?? roundPhaseMs(a.monitor_id, a.interval_s)) % interval_ms;
}

/**
 * Runs each held assignment at its rounds (docs/architecture/node-agent.md, assignments;
 * docs/api/monitors.md "Rounds"), independent of the control plane connection: round k of a
 * monitor starts at `phase_ms + k * interval_s * 1000` on the control plane's clock, so every node
 * it is placed on runs round k at the same instant, and `fire` gets that instant as `scheduled_at`.
 * A new assignment starts at its next round (never a round already begun). A round is run at most
 * once per monitor, also when the assignment changes (its timing is recomputed, the round that ran
 * is not repeated); a round whose timer fires more than an interval late (the machine slept) is
 * skipped, not caught up. One timer per assignment, set for its next round each time.
 */
export class AssignmentScheduler {
  readonly #o: SchedulerOptions;
  readonly #now: () => number;
  readonly #slots = new Map<string, Slot>();
  /** Monitor id → start (ms) of the last round fired: kept across changes of the assignment. */
  readonly #last = new Map<string, number>();
  /** Set by stop(): the agent is shutting down, and an assignments frame still arriving must not arm timers again. */
  #stopped = false;

  constructor(opts: SchedulerOptions) {
    this.#o = opts;
    this.#now = opts.now ?? Date.now;
  }

  /**
   * Make the schedule match `assignments`: unchanged ones keep their timers, changed ones are
   * timed again (their round stays the same unless the interval changed), missing ones stop.
   * Does nothing after {@link stop}.
   */
  sync(assignments: readonly Assignment[]): void {
    if (this.#stopped) return;
    const want = new Map(assignments.map((a) => [a.monitor_id, a]));
    for (const [id, slot] of this.#slots) {
      const a = want.get(id);
      if (!a || JSON.stringify(a) !== slot.body) this.#clear(id);
      if (!a) this.#last.delete(id);
    }
    for (const a of assignments) if (!this.#slots.has(a.monitor_id)) this.#start(a);
  }

  #start(a: Assignment): void {
    const slot: Slot = { body: JSON.stringify(a), timer: null };
    this.#slots.set(a.monitor_id, slot);
    this.#arm(a, slot, this.#nextAfter(a, this.#now()));
  }

  /** The next round of `a` after `t_ms` that has not run yet, epoch ms. */
  #nextAfter(a: Assignment, t_ms: number): number {
    const phase = assignmentPhaseMs(a);
    let at = nextRound(phase, a.interval_s, t_ms).at_ms;
    const last = this.#last.get(a.monitor_id);
    if (last !== undefined && at <= last) at = nextRound(phase, a.interval_s, last).at_ms;
    return at;
  }

  #arm(a: Assignment, slot: Slot, at_ms: number): void {
    slot.timer = setTimeout(() => this.#due(a, slot, at_ms), Math.max(0, at_ms - this.#now()));
  }

  #due(a: Assignment, slot: Slot, at_ms: number): void {
    if (this.#slots.get(a.monitor_id) !== slot) return;
    const now = this.#now();
    if (now < at_ms - EARLY_MS) return this.#arm(a, slot, at_ms);
    if (now - at_ms <= a.interval_s * 1000) {
      this.#last.set(a.monitor_id, at_ms);
      this.#o.fire(a, new Date(at_ms).toISOString());
    }
    this.#arm(a, slot, this.#nextAfter(a, Math.max(now, at_ms)));
  }

  #clear(id: string): void {
    const slot = this.#slots.get(id);
    if (!slot) return;
    if (slot.timer) clearTimeout(slot.timer);
    this.#slots.delete(id);
  }

  /** Monitor ids currently scheduled. */
  get monitor_ids(): string[] {
    return [...this.#slots.keys()];
  }

  /** When `monitor_id` runs next (epoch ms on the control plane's clock), or null when it is not held. */
  nextRunAt(monitor_id: string): number | null {
    const slot = this.#slots.get(monitor_id);
    if (!slot) return null;
    return this.#nextAfter(JSON.parse(slot.body) as Assignment, this.#now());
  }

  /**
   * Stop every timer for good (shutdown). Frames are still handled while the agent flushes its
   * outbox; an assignments frame among them once armed the timers again, and the stopped agent's
   * process then never exited.
   */
  stop(): void {
    this.#stopped = true;
    for (const id of [...this.#slots.keys()]) this.#clear(id);
  }
}
