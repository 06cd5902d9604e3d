import type { Config } from '../config/index.js';
import type { AccountRetention, MaintenanceCalendar, SqlExecutor } from '../contracts.js';
import type { Sql } from '../db/sql.js';
import type { Logger } from '../log.js';
import { pruneAccountChecks, rawDaysInUse } from './account-retention.js';
import { decidePass, type DecideOutcome } from './decide.js';
import { sweepSilentRounds } from './decide-silent.js';
import { dropOrphanRounds } from './decide.db.js';
import type { CheckHooks } from './hooks.js';
import { claimJob, finishJob, oldestCheckDay, pruneStateChanges, rollUpDay, rollUpHour, rollupMarks, takeDirtyHours, type CheckJobName } from './jobs.db.js';
import { packHistory } from './pack.js';
import { dropExpiredPartitions, ensurePartitions } from './partitions.js';
import { checkRetention } from './retention.js';
import type { VerdictWake } from './verdict-wake.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** An hour is rolled up this long after it ended: its last rounds' results have arrived by then. */
export const ROLLUP_SETTLE_MS = 10 * 60_000;
/** Hours one rollup run takes at most (then it is due again at once). */
const ROLLUP_HOURS_PER_RUN = 6;
/** Monitors one verdict pass claims at most. */
const DECIDE_BATCH = 200;
/**
 * Longest one retention run deletes checks of accounts with shorter retention, ms: well within the
 * hour its claim holds the job (due again at once when work is left), so no two instances overlap.
 */
const ACCOUNT_PRUNE_BUDGET_MS = 10 * 60_000;
/** Longest one pack run works, ms: within the hour its claim holds the job, as above. */
const PACK_BUDGET_MS = 10 * 60_000;

/**
 * `retention`: days each account keeps raw checks (billing/check-retention.ts); without it every
 * account keeps the deployment plan's (checkRetention).
 */
type JobDeps = {
  config: Pick<Config, 'plan' | 'checks_retention_days' | 'checks_rounds_retention_days' | 'checks_rollup_retention_days' | 'checks_round_grace_ms'>;
  log: Logger; retention?: AccountRetention;
};
/**
 * One job's run in its claim transaction `tx`. `after`: work that must not share that transaction
 * (partition DDL: partitions.ts; batched deletes), run once the claim committed; its `did` joins
 * the run's, and `more` makes the job due again at once (work left over).
 */
type JobRun = (tx: SqlExecutor, state: Record<string, unknown>, now: Date) => Promise<{
  state: Record<string, unknown>; again_ms: number; did: unknown; after?: () => Promise<{ did: unknown; more?: boolean }>;
}>;

const floorHour = (ms: number) => new Date(Math.floor(ms / HOUR_MS) * HOUR_MS);
const floorDay = (ms: number) => new Date(Math.floor(ms / DAY_MS) * DAY_MS);

/**
 * The jobs (docs/architecture/checks.md "Jobs"), each run by one instance at a time:
 * - partitions: daily and monthly partitions ready ahead (hourly);
 * - rollup: every hour `ROLLUP_SETTLE_MS` after it ended, its raw checks become one row per series
 *   (counts, failures, response-time histogram), and hours that got checks after that are rolled
 *   again; each day whose hours are all rolled up becomes one row per series (again when one of
 *   its hours is) (every 5 minutes);
 * - retention: partitions past their retention dropped (raw checks: the longest any account
 *   keeps), the checks of accounts keeping fewer days deleted in batches, old state changes
 *   deleted (each monitor's latest kept), dirty rounds of deleted monitors forgotten (hourly);
 * - silent_rounds: an empty round for each round whose deadline passed with no report, judged
 *   `no_data` by the verdict job (decide-silent.ts; every run of the jobs loop, on the database clock);
 * - pack: days of raw checks older than the rounds retention (no result is accepted for them any
 *   more) become blocks of an hour per series and their raw partitions are dropped (pack.ts; hourly,
 *   due again at once while behind).
 */
function jobs(deps: JobDeps & { sql: Sql }): Record<CheckJobName, JobRun> {
  const retention = checkRetention(deps.config);
  return {
    partitions: async (_tx, state, now) => ({ state, again_ms: HOUR_MS, did: undefined, after: async () => ({ did: await ensurePartitions(deps.sql, now) }) }),
    rollup: async (tx, state, now) => {
      let until = typeof state.rolled_until === 'string' ? new Date(state.rolled_until)
        : (await oldestCheckDay(tx)) ?? floorHour(now.getTime() - HOUR_MS);
      const target = floorHour(now.getTime() - ROLLUP_SETTLE_MS);
      // Daily rows exist for [days_from, days_until): from the first day this job started at.
      const days_from = typeof state.days_from === 'string' ? new Date(state.days_from) : floorDay(until.getTime());
      let days_until = typeof state.days_until === 'string' ? new Date(state.days_until) : days_from;
      let hours = 0;
      while (until.getTime() < target.getTime() && hours < ROLLUP_HOURS_PER_RUN) {
        await rollUpHour(tx, until);
        until = new Date(until.getTime() + HOUR_MS);
        hours++;
      }
      const dirty = await takeDirtyHours(tx, until, 50);
      for (const h of dirty) await rollUpHour(tx, h);
      // Days whose hours are all rolled up get their daily rows; days a late check changed, again.
      const redo = new Set(dirty.map((h) => floorDay(h.getTime()).getTime()).filter((d) => d >= days_from.getTime() && d < days_until.getTime()));
      let days = 0;
      while (days_until.getTime() + DAY_MS <= until.getTime()) {
        redo.add(days_until.getTime());
        days_until = new Date(days_until.getTime() + DAY_MS);
      }
      for (const d of redo) {
        await rollUpDay(tx, new Date(d));
        days++;
      }
      const behind = until.getTime() < target.getTime() || dirty.length === 50;
      const next = { rolled_until: until.toISOString(), days_from: days_from.toISOString(), days_until: days_until.toISOString() };
      return { state: next, again_ms: behind ? 0 : 5 * 60_000, did: { hours, dirty: dirty.length, days } };
    },
    retention: async (tx, state, now) => {
      const changes = await pruneStateChanges(tx, new Date(now.getTime() - retention.rollup_days * DAY_MS));
      const orphans = await dropOrphanRounds(tx);
      return { state, again_ms: HOUR_MS, did: { state_changes: changes, orphan_rounds: orphans }, after: () => expire(deps, now) };
    },
    silent_rounds: async (tx, state) => {
      const after = typeof state.swept_until === 'string' ? new Date(state.swept_until) : null;
      const r = await sweepSilentRounds(tx, after, deps.config.checks_round_grace_ms);
      return { state: { swept_until: r.swept_until.toISOString() }, again_ms: 0, did: { written: r.written } };
    },
    pack: async (_tx, state, now) => ({ state, again_ms: HOUR_MS, did: undefined, after: () => pack(deps, now) }),
  };
}

/**
 * The pack job's work after its claim (pack.ts): days older than the rounds retention and rolled
 * up, within the raw retention (the longest any account keeps), within PACK_BUDGET_MS.
 */
async function pack(deps: JobDeps & { sql: Sql }, now: Date): Promise<{ did: unknown; more: boolean }> {
  const retention = checkRetention(deps.config, deps.retention ? (await rawDaysInUse(deps.retention)).max_days : undefined);
  const r = await packHistory(deps.sql, {
    now, rounds_days: retention.rounds_days, raw_days: retention.raw_days, rolled_until: (await rollupMarks(deps.sql)).hours_until, budget_ms: PACK_BUDGET_MS,
  });
  return { did: { packed_days: r.days, packed_blocks: r.blocks, packed_checks: r.checks }, more: !r.done };
}

/**
 * The retention job's work after its claim: partitions past the longest retention any account
 * keeps dropped whole (without `deps.retention`, the deployment plan's), then the checks of
 * accounts keeping fewer days deleted in batches (account-retention.ts).
 */
async function expire(deps: JobDeps & { sql: Sql }, now: Date): Promise<{ did: unknown; more: boolean }> {
  if (!deps.retention) return { did: await dropExpiredPartitions(deps.sql, checkRetention(deps.config), now), more: false };
  const days = await rawDaysInUse(deps.retention);
  const retention = checkRetention(deps.config, days.max_days);
  const dropped = await dropExpiredPartitions(deps.sql, retention, now);
  const pruned = await pruneAccountChecks(deps.sql, days, { now, rounds_days: retention.rounds_days, budget_ms: ACCOUNT_PRUNE_BUDGET_MS });
  return { did: { ...dropped, raw_days: days.max_days, pruned_checks: pruned.rows, pruned_blocks: pruned.blocks, pruned_series: pruned.series }, more: !pruned.done };
}

/**
 * Run every due job once, each in its own transaction claimed FOR UPDATE SKIP LOCKED (any number
 * of instances); a job's `after` work runs once that transaction committed, and when it fails or
 * leaves work over (`more`) the job is due again at once. `now` stands for the current time in the jobs' date arithmetic (tests).
 * @returns what each job that ran did
 */
export async function runDueJobs(deps: JobDeps & { sql: Sql }, now: Date = new Date()): Promise<Partial<Record<CheckJobName, unknown>>> {
  const out: Partial<Record<CheckJobName, unknown>> = {};
  for (const [name, run] of Object.entries(jobs(deps)) as Array<[CheckJobName, JobRun]>) {
    try {
      const ran = await deps.sql.begin(async (tx) => {
        const state = await claimJob(tx, name);
        if (state === null) return null;
        const r = await run(tx, state, now);
        await finishJob(tx, name, r.again_ms, r.state);
        return r;
      });
      if (ran === null) continue;
      let did = ran.did;
      if (ran.after) {
        try {
          const after = await ran.after();
          did = did === undefined ? after.did : { ...(did as object), ...(after.did as object) };
          if (after.more) await finishJob(deps.sql, name, 0, ran.state);
        } catch (err) {
          await finishJob(deps.sql, name, 0, ran.state);
          throw err;
        }
      }
      out[name] = did;
    } catch (err) {
      deps.log.error({ err, job: name }, 'check job failed; retried on its next run');
    }
  }
  return out;
}

/** Handle on the running jobs (main.ts). */
export interface CheckJobs {
  /** Stop the timers and wait for runs in progress. */
  stop(): Promise<void>;
}

/**
 * Start the verdict job (every `checks_decide_interval_ms`, passes repeated while they come back
 * full; with `wake`, also as soon as check ingest in this process leaves a round judgeable:
 * verdict-wake.ts) and the periodic jobs (every `checks_jobs_interval_ms`, each run when due).
 * Errors are logged; the next tick tries again.
 */
export function startCheckJobs(deps: JobDeps & { sql: Sql; config: Pick<Config, 'checks_decide_interval_ms' | 'checks_jobs_interval_ms'>; hooks?: CheckHooks; maintenance?: MaintenanceCalendar; wake?: VerdictWake }): CheckJobs {
  const log = deps.log.child({ module: 'checks.jobs' });
  let stopped = false;
  const running = new Set<Promise<unknown>>();
  const cancels: Array<() => void> = [];

  /**
   * Run `body` every `every_ms` after the previous run ended; with `wake`, also at once on each
   * wake: a wake while a run is in progress (any number of them) makes one more run right after
   * it, so a run never overlaps another and wakes never spin.
   */
  function loop(every_ms: number, body: () => Promise<unknown>, wake?: VerdictWake): void {
    let timer: NodeJS.Timeout | null = null;
    let busy = false;
    let again = false;
    const schedule = () => {
      if (stopped) return;
      timer = setTimeout(tick, every_ms);
      timer.unref();
    };
    const tick = () => {
      if (stopped) return;
      if (busy) {
        again = true;
        return;
      }
      if (timer) clearTimeout(timer);
      timer = null;
      busy = true;
      const p = body().catch((err: unknown) => log.error({ err }, 'check job tick failed')).finally(() => {
        running.delete(p);
        busy = false;
        if (again && !stopped) {
          again = false;
          tick();
        } else schedule();
      });
      running.add(p);
    };
    const unlisten = wake?.listen(tick);
    cancels.push(() => {
      unlisten?.();
      if (timer) clearTimeout(timer);
    });
    schedule();
  }

  loop(deps.config.checks_decide_interval_ms, async () => {
    let r: DecideOutcome;
    do {
      r = await decidePass({ sql: deps.sql, hooks: deps.hooks, maintenance: deps.maintenance }, DECIDE_BATCH);
      if (r.changes > 0) log.debug(r, 'rounds judged');
    } while (r.monitors === DECIDE_BATCH && r.rounds > 0 && !stopped);
  }, deps.wake);
  loop(deps.config.checks_jobs_interval_ms, async () => {
    const did = await runDueJobs(deps);
    if (Object.keys(did).length > 0) log.info({ did }, 'check jobs ran');
  });

  return {
    async stop() {
      stopped = true;
      for (const cancel of cancels) cancel();
      await Promise.all([...running]);
    },
  };
}
