import type { HeartbeatCheckOutput } from '@vantage/shared-protocol';
import type { Sql } from '../db/sql.js';
import type { Logger } from '../log.js';
import { claimHeartbeats, saveHeartbeatState, seedHeartbeatStates } from './heartbeat.db.js';
import { heartbeatConfigOf } from './heartbeat-checkin.js';
import { missedBy, waitAfter } from './heartbeat-schedule.js';
import { storeControlCheck } from './results.db.js';

/** Rows one detector transaction claims. */
const BATCH = 200;

/**
 * One pass of the missed-check-in detector at `now` (docs/api/checks.md "heartbeat"), safe on any
 * number of instances at once (rows claimed with FOR UPDATE SKIP LOCKED): heartbeat monitors get
 * their row; a wait not yet computed, or computed for an older revision of the monitor (edited,
 * resumed), is computed (from the creation for a new monitor, else from `now`); a wait whose
 * deadline has passed stores a failed check at the last missed expected check-in (class
 * `timeout`; idempotent by that time) and waits for the next one.
 * @returns how many missed check-ins were stored
 */
export async function detectMissedHeartbeats(sql: Sql, now: Date): Promise<number> {
  await seedHeartbeatStates(sql);
  let missed = 0;
  for (;;) {
    const claimed = await sql.begin(async (tx) => {
      const rows = await claimHeartbeats(tx, now, BATCH);
      for (const h of rows) {
        const config = heartbeatConfigOf(h.config);
        if (h.revision !== h.monitor_revision || h.due_at === null || h.deadline_at === null) {
          // New rows keep their creation anchor; a changed monitor starts waiting afresh.
          const anchor_at = h.revision === h.monitor_revision ? h.anchor_at : now;
          const wait = waitAfter(config, anchor_at);
          // A cron schedule that never fires again waits forever (deadline far ahead, never claimed).
          await saveHeartbeatState(tx, { ...h, revision: h.monitor_revision, anchor_at, ...wait, deadline_at: wait.deadline_at ?? new Date('9999-12-31T00:00:00Z') });
          continue;
        }
        const miss = missedBy(config, { due_at: h.due_at, deadline_at: h.deadline_at }, now);
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
        })) missed++;
        await saveHeartbeatState(tx, {
          ...h, anchor_at: miss.last_due_at, ...miss.next, deadline_at: miss.next.deadline_at ?? new Date('9999-12-31T00:00:00Z'),
        });
      }
      return rows.length;
    });
    if (claimed < BATCH) return missed;
  }
}

/**
 * Run the detector every `every_ms` (default 5 s: a missed check-in is noticed within that of its
 * deadline), one pass at a time. @returns stop(): resolves once a running pass has ended
 */
export function startHeartbeatJob(deps: { sql: Sql; log: Logger }, every_ms = 5000): { stop(): Promise<void> } {
  const log = deps.log.child({ module: 'control-checks.heartbeat' });
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = detectMissedHeartbeats(deps.sql, new Date())
      .then((n) => { if (n > 0) log.info({ missed: n }, 'missed heartbeat check-ins stored'); })
      .catch((err) => log.warn({ err }, 'heartbeat detector pass failed'))
      .finally(() => { running = null; });
  }, every_ms);
  timer.unref();
  return { async stop() { clearInterval(timer); await running; } };
}
