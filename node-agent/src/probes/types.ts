import type { FailureClass, ProbeOutputs, ProbeParams, ProbeType } from '@vantage/shared-protocol';
import type { Logger } from 'pino';
import type { TargetPolicy } from './target-policy.js';

/** What a probe gets besides its check: cancellation, the node's target policy and a logger. */
export interface ProbeContext {
  /** Aborted when the check's timeout passes or the task is cancelled; probes must stop promptly. */
  signal: AbortSignal;
  /** Which resolved addresses this node may probe (docs/architecture/probes.md, target safety). */
  policy: TargetPolicy;
  log: Logger;
}

/**
 * What one check run produced (a failed check is a result with a reason, not an
 * exception). `output` is the type's measured shape; fields not reached are null.
 */
export interface ProbeOutcome<T extends ProbeType> {
  success: boolean;
  error: string | null;
  error_class: FailureClass | null;
  output: ProbeOutputs[T];
}

/**
 * One check type (blackbox_exporter's prober / synthetic-monitoring-agent's Prober): a single
 * attempt, no retries; confirmation is decided above the probe (docs/architecture/probes.md).
 * Implementations are registered in registry.ts, the only place that dispatches on the type.
 */
export interface Probe<T extends ProbeType> {
  readonly type: T;
  run(target: string, params: ProbeParams[T], ctx: ProbeContext): Promise<ProbeOutcome<T>>;
}
