import { HEARTBEAT_BODIES_KEPT, heartbeatMonitorConfigSchema, type HeartbeatCheckOutput, type HeartbeatMonitorConfig } from '@vantage/shared-protocol';
import type { Sql } from '../db/sql.js';
import type { MonitorRow } from '../monitors/monitors.db.js';
import type { KeptBody } from './heartbeat-checkin-body.js';
import { keepCheckinBody, lockHeartbeatState, saveHeartbeatState } from './heartbeat.db.js';
import { earliest, runDeadline, waitAfter } from './heartbeat-schedule.js';
import { storeControlCheck } from './results.db.js';
import { clearPackedBodies } from '../checks/pack-bodies.js';

/** The variant of a check-in: the plain URL, `/start`, `/fail` or `/{exit_status}`. */
export type CheckinKind = 'start' | 'success' | 'fail' | 'exit_status';

/** One check-in as the route received it. */
export interface Checkin {
  kind: CheckinKind;
  /** 0-255 for `/{exit_status}` (0 is a success), else null. */
  exit_status: number | null;
  method: 'GET' | 'POST' | 'HEAD';
  source_ip: string | null;
  user_agent: string | null;
  /** The request body as kept (heartbeat-checkin-body.ts: sanitised, its first HEARTBEAT_BODY_MAX_BYTES), or null without one. */
  body: KeptBody | null;
}

/** The stored config of a heartbeat monitor, read through its schema (defaults filled). */
export function heartbeatConfigOf(config: unknown): HeartbeatMonitorConfig {
  const parsed = heartbeatMonitorConfigSchema.safeParse(config);
  return parsed.success ? parsed.data : { period_s: 300, grace_s: 60 };
}

/**
 * Record a check-in of heartbeat monitor `m` received at `now` (docs/api/checks.md "heartbeat"):
 * `/start` marks the start of a run (unfinished, a down check, when no success or failure follows
 * within `grace_s`: heartbeat-job.ts); a success, `/fail` or `/{exit_status}` stores a check
 * (success for exit status 0; down for a failure or a non-zero status) carrying the run's duration
 * since its start and the first 10 KB of the body (sanitised by the route; the newest
 * HEARTBEAT_BODIES_KEPT bodies per monitor are kept, older ones cleared), and restarts the wait
 * for the next check-in from `now`. A paused monitor's check-ins are answered but change nothing.
 * @returns ignored: true when the monitor is paused
 */
export async function recordCheckin(sql: Sql, m: MonitorRow, c: Checkin, now: Date): Promise<{ ignored: boolean }> {
  if (m.status !== 'active') return { ignored: true };
  const config = heartbeatConfigOf(m.config);
  await sql.begin(async (tx) => {
    const state = await lockHeartbeatState(tx, m.id, m.revision, now);
    if (c.kind === 'start') {
      // The wait brought up to the monitor's revision first (as the detector would), so the run
      // belongs to it; the detector looks again when the run must have ended (or the next
      // check-in is due, if sooner).
      const changed = state.revision !== m.revision;
      const anchor_at = changed ? now : state.anchor_at;
      const wait = changed || state.due_at === null ? waitAfter(config, anchor_at) : { due_at: state.due_at, deadline_at: state.deadline_at };
      await saveHeartbeatState(tx, {
        ...state, revision: m.revision, anchor_at, ...wait, run_started_at: now,
        deadline_at: earliest(wait.deadline_at, runDeadline(config, now)),
      });
      return;
    }
    const success = c.kind === 'success' || (c.kind === 'exit_status' && c.exit_status === 0);
    const kind = c.kind === 'exit_status' && c.exit_status === 0 ? 'success' : c.kind;
    const output: HeartbeatCheckOutput = {
      kind, method: c.method, source_ip: c.source_ip, user_agent: c.user_agent?.slice(0, 200) ?? null,
      exit_status: c.exit_status,
      duration_ms: state.run_started_at && state.run_started_at <= now ? now.getTime() - state.run_started_at.getTime() : null,
      ...(c.body ?? { body: null, body_truncated: false }),
      expected_at: null, deadline_at: null, last_checkin_at: state.last_checkin_at?.toISOString() ?? null, missed_count: 0,
    };
    const stored = await storeControlCheck(tx, {
      monitor_id: m.id, interval_s: m.interval_s, scheduled_at: now, started_at: now, finished_at: now,
      success,
      error: success ? null : kind === 'fail' ? 'the job reported a failure (/fail check-in)' : `the job exited with status ${c.exit_status}`,
      error_class: success ? null : 'target',
      output,
    });
    // Bodies are bounded per monitor (the newest HEARTBEAT_BODIES_KEPT); the check-ins themselves are all kept.
    if (stored && output.body !== null) {
      const { dropped } = await keepCheckinBody(tx, m.id, now, HEARTBEAT_BODIES_KEPT);
      await clearPackedBodies(tx, m.id, dropped, now);
    }
    await saveHeartbeatState(tx, {
      ...state, revision: m.revision, anchor_at: now, ...waitAfter(config, now), last_checkin_at: now, run_started_at: null,
    });
  });
  return { ignored: false };
}
