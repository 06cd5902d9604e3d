import type { AgentObsEndpointConfig, AgentObsFailureThreshold, AgentObsType } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import type { MonitorFields } from '../monitors/monitors.db.js';
import { monitorChecker } from '../monitors/spec.js';
import { sealedConfig, secretsFailure } from '../monitors/header-secrets.js';
import { secretBoxOf } from '../secrets/secret-box.js';
import type { Owner } from '../teams/authorize.js';
import { checkConfigOf, checkTypeOf, type CheckOptions } from './check-config.js';

/** The agent-obs fields a backing monitor is made of. */
export interface BackingSource {
  id: string;
  agent_name: string;
  type: AgentObsType;
  endpoint_url: string;
  frequency_seconds: number;
  failure_threshold: AgentObsFailureThreshold;
  endpoint_config: AgentObsEndpointConfig;
  options: CheckOptions;
}

/** The backing monitor's name: the agent's, with the agent-obs id (names are unique per owner). */
export function backingName(src: Pick<BackingSource, 'id' | 'agent_name'>): string {
  return `${src.agent_name.slice(0, 150)} [${src.id}]`;
}

/**
 * Build what turns agent-obs fields into the backing monitor's stored fields (docs/api/agent-obs.md
 * "How checks run"): the check config (check-config.ts) validated and filled by the monitor
 * checker (monitors/spec.ts: config schema, target and address policy, node count of the plan),
 * the period `frequency_seconds` (>= 10 s: agent-obs monitors are not held to the monitor
 * intervals), and request headers sealed with the secret box (a mask keeps the stored secret of
 * `previous`, the backing monitor's current config).
 * @throws ApiError VALIDATION_FAILED / MONITOR_INVALID_TARGET as the checker does
 */
export function backingMonitorBuilder(deps: Pick<AppDeps, 'sql' | 'config'>) {
  const check = monitorChecker({ sql: deps.sql, config: deps.config });
  const box = secretBoxOf(deps.config);
  return async function build(owner: Owner, monitor_id: string, src: BackingSource, previous: Record<string, unknown> | null): Promise<MonitorFields> {
    const type = checkTypeOf(src.type);
    const config = checkConfigOf({ type: src.type, failure_threshold: src.failure_threshold, endpoint_config: src.endpoint_config, options: src.options });
    let fields: MonitorFields;
    try {
      fields = await check(owner, { name: backingName(src), type, target: src.endpoint_url, config, interval_s: 300 });
    } catch (err) {
      // The checker names the monitor's fields; say which agent-obs field they came from.
      if (err instanceof ApiError && err.code === 'MONITOR_INVALID_TARGET') throw new ApiError('MONITOR_INVALID_TARGET', `endpoint_url: ${err.message}`, err.details);
      throw err;
    }
    return { ...fields, interval_s: src.frequency_seconds, config: secretsFailure(() => sealedConfig(box, monitor_id, type, fields.config, previous)) };
  };
}
