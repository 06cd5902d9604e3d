import type { CheckResult } from '@vantage/shared-protocol';
import { createChecks, type CheckOptions } from './registry.js';
import { runMonitorCheckWith, type MonitorRun, type MonitorRunOptions } from './runner.js';
import type { RunMonitorCheckFn } from './job.js';

export { createChecks, type CheckOptions } from './registry.js';
export { runMonitorCheckWith, type MonitorRun, type MonitorRunOptions } from './runner.js';
export { monitorCheckJob, type RunMonitorCheckFn } from './job.js';

/**
 * The node's monitor check engine (docs/api/checks.md): `run(assignment, scheduled_at, opts)` runs
 * one check of the assignment's monitor for that round and returns its result. Built once per
 * agent (one pattern sandbox, one traceroute path memory).
 */
export function createMonitorCheckRunner(options: CheckOptions = {}): RunMonitorCheckFn {
  const checks = createChecks(options);
  return (run: MonitorRun, scheduled_at: string, opts: MonitorRunOptions): Promise<CheckResult> => runMonitorCheckWith(checks, run, scheduled_at, opts);
}
