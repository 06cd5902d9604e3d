import type { Assignment } from '@vantage/shared-protocol';

/** Upper bound on one monitor run, ms, whatever its interval (ours; the protocol sets none). */
export const ASSIGNMENT_RUN_MAX_MS = 60_000;

/** Time allowed for one run of `a`, ms: its interval, capped at ASSIGNMENT_RUN_MAX_MS (runs never overlap). */
export function assignmentTimeoutMs(a: Assignment): number {
  return Math.min(a.interval_s * 1000, ASSIGNMENT_RUN_MAX_MS);
}

interface Slot {
  body: string;
  first: NodeJS.Timeout;
  every: NodeJS.Timeout | null;
}

export interface SchedulerOptions {
  /** Called at each due time of an assignment (the agent queues the check run). */
  fire: (a: Assignment) => void;
  /** Random source in [0, 1) for the start offset (tests fix it). */
  random?: () => number;
}

/**
 * Runs each held assignment every `interval_s` on the node's own clock (issue 5 item 6; DESIGN.md
 * "Monitors run on nodes"), independent of the control plane connection. Each monitor starts after
 * a random offset in [0, interval) so a node's monitors, and nodes restarted together, spread out.
 * Plain timers, not cron: intervals are seconds-based (10 s to 1 day), not calendar times.
 */
export class AssignmentScheduler {
  readonly #o: SchedulerOptions;
  readonly #slots = new Map<string, Slot>();

  constructor(opts: SchedulerOptions) {
    this.#o = opts;
  }

  /**
   * Make the schedule match `assignments`: unchanged ones keep their timing, changed ones restart
   * with a new offset, missing ones stop.
   */
  sync(assignments: readonly Assignment[]): void {
    const want = new Map(assignments.map((a) => [a.monitor_id, a]));
    for (const [id, slot] of this.#slots) {
      const a = want.get(id);
      if (!a || JSON.stringify(a) !== slot.body) this.#clear(id);
    }
    for (const a of assignments) if (!this.#slots.has(a.monitor_id)) this.#schedule(a);
  }

  #schedule(a: Assignment): void {
    const interval_ms = a.interval_s * 1000;
    const offset_ms = Math.floor((this.#o.random ?? Math.random)() * interval_ms);
    const slot: Slot = { body: JSON.stringify(a), first: setTimeout(() => {
      slot.every = setInterval(() => this.#o.fire(a), interval_ms);
      this.#o.fire(a);
    }, offset_ms), every: null };
    this.#slots.set(a.monitor_id, slot);
  }

  #clear(id: string): void {
    const slot = this.#slots.get(id);
    if (!slot) return;
    clearTimeout(slot.first);
    if (slot.every) clearInterval(slot.every);
    this.#slots.delete(id);
  }

  /** Monitor ids currently scheduled. */
  get monitor_ids(): string[] {
    return [...this.#slots.keys()];
  }

  /** Stop every timer (shutdown). */
  stop(): void {
    for (const id of [...this.#slots.keys()]) this.#clear(id);
  }
}
