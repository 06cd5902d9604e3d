import { MONITOR_CONFIGS, type CheckResultOf, type NodeCheckType } from '@vantage/shared-protocol';
import { silentLogger } from '../../probes/test-support/logger.js';
import type { TargetPolicy } from '../../probes/target-policy.js';
import { runMonitorCheckWith } from '../runner.js';
import type { CheckMap } from '../types.js';

/** Loopback allowed: tests probe their own servers. */
export const ALLOW_LOOPBACK: TargetPolicy = { allow_private: true, allow_cidrs: [] };
const MONITOR_ID = 'm_0000000000testtesttesttest';

/**
 * Run one check of `type` as the agent does (config parsed with the API's schema, defaults
 * filled, through the runner), for tests and benchmarks.
 */
export async function runCheckOnce<T extends NodeCheckType>(checks: Partial<CheckMap>, type: T, target: string, rawConfig: unknown = {}, opts: { timeout_ms?: number; policy?: TargetPolicy; monitor_id?: string } = {}): Promise<CheckResultOf<T>> {
  const config = MONITOR_CONFIGS[type].parse(rawConfig);
  const result = await runMonitorCheckWith(checks, { monitor_id: opts.monitor_id ?? MONITOR_ID, check: { type, target, config } as never }, new Date().toISOString(), {
    timeout_ms: opts.timeout_ms ?? 30_000, policy: opts.policy ?? ALLOW_LOOPBACK, log: silentLogger(),
  });
  return result as CheckResultOf<T>;
}
