import { nextHeartbeatDue, type HeartbeatMonitorConfig } from '@vantage/shared-protocol';

/*
 * When a heartbeat monitor expects its next check-in (docs/api/checks.md "heartbeat"), with
 * Healthchecks.io's semantics: the next check-in is due one period after the last one (or, for a
 * cron schedule, at the schedule's next firing after it, in the schedule's time zone); it is
 * missed when none arrives by that time plus the grace.
 */

/** What a heartbeat monitor waits for. */
export interface HeartbeatWait {
  /** When the next check-in is due; null when a cron schedule never fires again. */
  due_at: Date | null;
  /** due_at + grace_s: a check-in later than this is missed. */
  deadline_at: Date | null;
}

/** The wait after `anchor` (a check-in, a missed expected check-in, or when the monitor started waiting). */
export function waitAfter(config: HeartbeatMonitorConfig, anchor: Date): HeartbeatWait {
  const due_at = nextHeartbeatDue(config, anchor);
  return { due_at, deadline_at: due_at && new Date(due_at.getTime() + config.grace_s * 1000) };
}

/**
 * When a run that checked in `/start` at `started_at` must have ended (started_at + grace_s): past
 * it without a success or failure check-in the run is unfinished (Healthchecks.io: a started job
 * that does not complete within the grace time is down).
 */
export function runDeadline(config: HeartbeatMonitorConfig, started_at: Date): Date {
  return new Date(started_at.getTime() + config.grace_s * 1000);
}

/** The earlier of two instants (null = never). */
export function earliest(a: Date | null, b: Date | null): Date | null {
  if (a === null) return b;
  if (b === null) return a;
  return a.getTime() <= b.getTime() ? a : b;
}

/** Most expected check-ins walked through when catching up after a long silence (a minute-period monitor silent for 7 days). */
const CATCH_UP_MAX = 20_000;

/**
 * The expected check-ins missed by `now`, starting with `wait` (whose deadline has passed): the
 * last missed one (reported as the missed check), how many were missed, and the wait that follows
 * it. A period schedule is stepped arithmetically; a cron one firing by firing (bounded: past
 * CATCH_UP_MAX firings the rest are counted as one).
 */
export function missedBy(config: HeartbeatMonitorConfig, wait: { due_at: Date; deadline_at: Date }, now: Date): { last_due_at: Date; last_deadline_at: Date; missed_count: number; next: HeartbeatWait } {
  const grace_ms = config.grace_s * 1000;
  let due = wait.due_at;
  let count = 1;
  if ('period_s' in config) {
    const period_ms = config.period_s * 1000;
    // Further slots whose deadline has passed as well: due + k * period + grace <= now.
    const more = Math.max(0, Math.floor((now.getTime() - grace_ms - due.getTime()) / period_ms));
    due = new Date(due.getTime() + more * period_ms);
    count += more;
  } else {
    for (let i = 0; i < CATCH_UP_MAX; i++) {
      const next = nextHeartbeatDue(config, due);
      if (!next || next.getTime() + grace_ms > now.getTime()) break;
      due = next;
      count++;
    }
  }
  return { last_due_at: due, last_deadline_at: new Date(due.getTime() + grace_ms), missed_count: count, next: waitAfter(config, due) };
}
