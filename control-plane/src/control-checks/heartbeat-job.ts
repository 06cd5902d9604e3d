import type { HeartbeatCheckOutput, HeartbeatMonitorConfig } from '@vantage/shared-protocol';
import type { EventPublisher } from '../contracts.js';
import type { Sql } from '../db/sql.js';
import type { Logger } from '../log.js';
import { claimHeartbeats, saveHeartbeatState, seedHeartbeatStates, type ClaimedHeartbeat } from './heartbeat.db.js';
import { heartbeatConfigOf } from './heartbeat-checkin.js';
import { earliest, missedBy, runDeadline, waitAfter } from './heartbeat-schedule.js';
import { storeControlCheck, type ControlCheckResult } from './results.db.js';

/** Rows one detector transaction claims. */
const BATCH = 200;

/** Far ahead: a wait that never ends (a cron schedule that never fires again) is never claimed. */
const NEVER = new Date('9999-12-31T00:00:00Z');

/**
 * One pass of the missed-check-in detector at `now` (docs/api/checks.md "heartbeat"), safe on any
 * number of instances at once (rows claimed with FOR UPDATE SKIP LOCKED): heartbeat monitors get
 * their row; a wait not yet computed, or computed for an older revision of the monitor (edited,
 * resumed), is computed (from the creation for a new monitor, else from `now`, forgetting a run
 * started before the change); a run that checked
 * in `/start` and has not ended by its start + grace stores a failed check at its start (kind
 * `unfinished`, class `timeout`); a wait whose deadline has passed stores a failed check at the last
 * missed expected check-in (kind `missed`, class `timeout`) and waits for the next one. Checks are
 * idempotent by their time. A row's `deadline_at` is when it needs the detector next: the earlier
 * of the wait's deadline (due + grace) and the open run's.
 * Each missed check stored queues the webhook event `heartbeat.missed` through `events` in the
 * same transaction (docs/api/webhooks.md "Events"), so it is sent once however many instances run.
 * @returns how many failed checks were stored
 */
export async function detectMissedHeartbeats(sql: Sql, now: Date, events?: EventPublisher): Promise<number> {
  await seedHeartbeatStates(sql);
  let missed = 0;
  for (;;) {
    const claimed = await sql.begin(async (tx) => {
      const rows = await claimHeartbeats(tx, now, BATCH);
      for (const h of rows) {
        const config = heartbeatConfigOf(h.config);
        const changed = h.revision !== h.monitor_revision;
        // A run started before the monitor was edited, paused or resumed is forgotten with its wait
        // (a /start check-in brings the row up to the monitor's revision: heartbeat-checkin.ts).
        let run_started_at = changed ? null : h.run_started_at;
        if (run_started_at && runDeadline(config, run_started_at) <= now) {
          if (await storeControlCheck(tx, unfinishedCheck(h, config, run_started_at, now))) missed++;
          run_started_at = null;
        }
        const open_run = run_started_at && runDeadline(config, run_started_at);
        if (changed || h.due_at === null) {
          // New rows keep their creation anchor; a changed monitor starts waiting afresh.
          const anchor_at = changed ? now : h.anchor_at;
          const wait = waitAfter(config, anchor_at);
          await saveHeartbeatState(tx, { ...h, revision: h.monitor_revision, anchor_at, ...wait, run_started_at, deadline_at: earliest(wait.deadline_at, open_run) ?? NEVER });
          continue;
        }
        const slot_deadline = new Date(h.due_at.getTime() + config.grace_s * 1000);
        if (slot_deadline > now) {
          // Only the run's deadline brought the row here: the wait goes on.
          await saveHeartbeatState(tx, { ...h, run_started_at, deadline_at: earliest(slot_deadline, open_run)! });
          continue;
        }
        const miss = missedBy(config, { due_at: h.due_at, deadline_at: slot_deadline }, now);
        const output: HeartbeatCheckOutput = {
          kind: 'missed', method: null, source_ip: null, user_agent: null, exit_status: null, duration_ms: null,
          body: null, body_truncated: false,
          expected_at: miss.last_due_at.toISOString(), deadline_at: miss.last_deadline_at.toISOString(),
          last_checkin_at: h.last_checkin_at?.toISOString() ?? null, missed_count: miss.missed_count,
        };
        const since = h.last_checkin_at ? `since ${h.last_checkin_at.toISOString()}` : 'yet';
        if (await storeControlCheck(tx, {
          monitor_id: h.monitor_id, interval_s: h.interval_s, scheduled_at: miss.last_due_at, started_at: now, finished_at: now,
          success: false, error_class: 'timeout', output,
          error: `no check-in ${since}: expected at ${miss.last_due_at.toISOString()}, grace ${config.grace_s} s`,
        })) {
          missed++;
          await events?.publish({
            type: 'heartbeat.missed', user_id: h.user_id, occurred_at: miss.last_deadline_at,
            data: {
              monitor: { id: h.monitor_id, name: h.name, type: 'heartbeat', target: h.target ?? '' },
              last_ping_at: h.last_checkin_at?.toISOString() ?? null, expected_at: miss.last_due_at.toISOString(),
            },
          }, tx);
        }
        await saveHeartbeatState(tx, {
          ...h, anchor_at: miss.last_due_at, ...miss.next, run_started_at, deadline_at: earliest(miss.next.deadline_at, open_run) ?? NEVER,
        });
      }
      return rows.length;
    });
    if (claimed < BATCH) return missed;
  }
}

/** The failed check of a run that checked in `/start` at `started_at` and did not end within the grace. */
function unfinishedCheck(h: ClaimedHeartbeat, config: HeartbeatMonitorConfig, started_at: Date, now: Date): ControlCheckResult {
  const deadline = runDeadline(config, started_at);
  return {
    monitor_id: h.monitor_id, interval_s: h.interval_s, scheduled_at: started_at, started_at: now, finished_at: now,
    success: false, error_class: 'timeout',
    error: `started at ${started_at.toISOString()} (/start check-in) and not finished within the grace of ${config.grace_s} s`,
    output: {
      kind: 'unfinished', method: null, source_ip: null, user_agent: null, exit_status: null, duration_ms: null,
      body: null, body_truncated: false, expected_at: started_at.toISOString(), deadline_at: deadline.toISOString(),
      last_checkin_at: h.last_checkin_at?.toISOString() ?? null, missed_count: 0,
    },
  };
}

/**
 * Run the detector every `every_ms` (default 5 s: a missed check-in is noticed within that of its
 * deadline), one pass at a time, queueing `heartbeat.missed` through `deps.events`.
 * @returns stop(): resolves once a running pass has ended
 */
export function startHeartbeatJob(deps: { sql: Sql; log: Logger; events: EventPublisher }, every_ms = 5000): { stop(): Promise<void> } {
  const log = deps.log.child({ module: 'control-checks.heartbeat' });
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = detectMissedHeartbeats(deps.sql, new Date(), deps.events)
      .then((n) => { if (n > 0) log.info({ missed: n }, 'missed heartbeat check-ins stored'); })
      .catch((err) => log.warn({ err }, 'heartbeat detector pass failed'))
      .finally(() => { running = null; });
  }, every_ms);
  timer.unref();
  return { async stop() { clearInterval(timer); await running; } };
}
