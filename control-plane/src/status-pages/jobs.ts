import type { AppDeps } from '../deps.js';
import { syncAlertIncidents } from '../incidents/alert-incidents.js';
import type { Logger } from '../log.js';
import { sendMaintenanceNotices } from './maintenance-notices.js';

/**
 * The status pages' periodic work, every `every_ms` (default 5 s) until stopped: incidents opened
 * and resolved from alert events (incidents/alert-incidents.ts) and maintenance notices to
 * subscribers (maintenance-notices.ts). Both are safe on any number of instances; a failed pass
 * is logged and the next one runs on time.
 */
export function startStatusPageJobs(deps: Pick<AppDeps, 'sql' | 'config' | 'mail'> & { log: Logger }, every_ms = 5000): { stop(): Promise<void> } {
  const log = deps.log.child({ module: 'status-pages.jobs' });
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = (async () => {
      const incidents = await syncAlertIncidents(deps);
      const notices = await sendMaintenanceNotices(deps, new Date());
      if (incidents.opened + incidents.resolved + notices > 0) log.info({ ...incidents, maintenance_notices: notices }, 'status page jobs');
    })()
      .catch((err) => log.warn({ err }, 'status page jobs pass failed'))
      .finally(() => { running = null; });
  }, every_ms);
  timer.unref();
  return { async stop() { clearInterval(timer); await running; } };
}
