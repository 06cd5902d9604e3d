import type { AssertionResult, CheckFailureClass, CheckOutputs, MonitorConfig, NodeCheckType } from '@vantage/shared-protocol';
import type { Logger } from 'pino';
import type { TargetPolicy } from '../probes/target-policy.js';

/** What a check gets besides its target and config. */
export interface CheckContext {
  /** Aborted when the run's time is up or the node stops; checks must stop promptly. */
  signal: AbortSignal;
  /** Which resolved addresses this run may reach (docs/architecture/probes.md, target safety). */
  policy: TargetPolicy;
  log: Logger;
  monitor_id: string;
  /** The round this run belongs to, ISO 8601 UTC. */
  scheduled_at: string;
}

/**
 * What one check run found (a failed check is a result with a reason, not an exception):
 * `assertions` has one result per configured assertion (empty for types without assertions);
 * `error` is the first failing condition's detail, or the probe's error.
 */
export interface CheckOutcome<T extends NodeCheckType> {
  success: boolean;
  error: string | null;
  error_class: CheckFailureClass | null;
  assertions: AssertionResult[];
  output: CheckOutputs[T];
}

/**
 * One monitor check type (docs/api/checks.md): a single attempt with the monitor's validated
 * config (shared-protocol MONITOR_CONFIGS, defaults filled). Implementations are registered in
 * registry.ts, the only place that dispatches on the type.
 */
export interface Check<T extends NodeCheckType> {
  readonly type: T;
  run(target: string, config: MonitorConfig<T>, ctx: CheckContext): Promise<CheckOutcome<T>>;
}

/** A check for every node check type. */
export type CheckMap = { [T in NodeCheckType]: Check<T> };

/** A passed outcome with no assertions. */
export function passed<T extends NodeCheckType>(output: CheckOutputs[T], assertions: AssertionResult[] = []): CheckOutcome<T> {
  return { success: true, error: null, error_class: null, assertions, output };
}

/** A failed outcome. */
export function failed<T extends NodeCheckType>(output: CheckOutputs[T], error: string, error_class: CheckFailureClass, assertions: AssertionResult[] = []): CheckOutcome<T> {
  return { success: false, error: error.slice(0, 2000), error_class, assertions, output };
}
