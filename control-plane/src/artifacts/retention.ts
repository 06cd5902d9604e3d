import { rawDaysInUse } from '../checks/account-retention.js';
import { checkRetention } from '../checks/retention.js';
import type { Config } from '../config/index.js';
import type { AccountRetention } from '../contracts.js';
import type { Sql } from '../db/sql.js';
import type { Logger } from '../log.js';
import { claimRetentionJob, dropExpiredReferences, dropUnreferencedFiles, finishRetentionJob } from './artifacts.db.js';
import { ArtifactStore } from './store.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Files deleted per run at most (then the job is due again at once). */
const FILES_PER_RUN = 1000;
/** A file no reference names is kept this long after its last upload (one registering now is never deleted), ms. */
const IDLE_MS = HOUR_MS;

/** `retention`: days each account keeps raw checks (billing/check-retention.ts); without it, the deployment plan's. */
type RetentionDeps = {
  sql: Sql;
  log: Logger;
  config: Pick<Config, 'data_dir' | 'plan' | 'checks_retention_days' | 'checks_rounds_retention_days' | 'checks_rollup_retention_days'>;
  retention?: AccountRetention;
};

/** What one retention run did. */
export interface ArtifactRetentionRun { references: number; files: number; temp_files: number }

/**
 * The artifact retention job (docs/architecture/artifacts.md "Retention"), claimed FOR UPDATE
 * SKIP LOCKED (one instance at a time), hourly: references to rounds past the longest raw check
 * retention any account has (checks/account-retention.ts: the checks naming them are gone) are
 * deleted, as are references whose check is not there once results are no longer accepted for
 * their round (it never arrived, or its account's shorter retention deleted it); then every file
 * no reference names (and no upload touched for an hour) is deleted from the data folder, and
 * temp files of uploads cut off by a crash.
 * @returns what it did, or null when the job was not due (or another instance holds it)
 */
export async function runArtifactRetention(deps: RetentionDeps, now: Date = new Date()): Promise<ArtifactRetentionRun | null> {
  const retention = checkRetention(deps.config, deps.retention ? (await rawDaysInUse(deps.retention)).max_days : undefined);
  const store = new ArtifactStore(deps.config.data_dir);
  let files: string[] = [];
  let references = 0;
  const claimed = await deps.sql.begin(async (tx) => {
    if (!(await claimRetentionJob(tx))) return false;
    references = await dropExpiredReferences(tx, new Date(now.getTime() - retention.raw_days * DAY_MS), new Date(now.getTime() - retention.rounds_days * DAY_MS));
    files = await dropUnreferencedFiles(tx, new Date(now.getTime() - IDLE_MS), FILES_PER_RUN);
    // Deleted while their rows are locked: an upload of the same content registering now waits for
    // this commit, then finds the file gone and asks for it again (upload.routes.ts).
    for (const sha of files) await store.remove(sha);
    await finishRetentionJob(tx, files.length === FILES_PER_RUN ? 0 : HOUR_MS);
    return true;
  });
  if (!claimed) return null;
  const temp_files = await store.sweepTemp(now.getTime());
  return { references, files: files.length, temp_files };
}

/** Handle on the running job (main.ts). */
export interface ArtifactJobs { stop(): Promise<void> }

/** Look at the retention job every `artifact_jobs_interval_ms` and run it when due; errors are logged and retried next time. */
export function startArtifactJobs(deps: RetentionDeps & { config: Pick<Config, 'artifact_jobs_interval_ms'> }): ArtifactJobs {
  const log = deps.log.child({ module: 'artifacts.retention' });
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let stopped = false;
  const tick = () => {
    running = runArtifactRetention(deps)
      .then((did) => { if (did && (did.references || did.files || did.temp_files)) log.info(did, 'artifact retention ran'); })
      .catch((err: unknown) => log.error({ err }, 'artifact retention failed; retried on its next run'))
      .finally(() => {
        running = null;
        if (!stopped) {
          timer = setTimeout(tick, deps.config.artifact_jobs_interval_ms);
          timer.unref();
        }
      });
  };
  timer = setTimeout(tick, deps.config.artifact_jobs_interval_ms);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
