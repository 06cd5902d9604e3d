import type { CheckSpec } from '@vantage/shared-protocol';
import { runCheckWith, type CheckRunOf, type RunOptions } from './check-run.js';
import { PROBES } from './registry.js';
import { createSpeedtestProbe, type SpeedtestCaps } from './speedtest.js';
import { createSslProbe } from './ssl.js';

export type { CheckRun, CheckRunOf, RunOptions } from './check-run.js';
export { ProbeInputError } from './input-error.js';

/**
 * Run one check with the node's registered probes (registry.ts); the result is typed by the
 * check's type when the caller knows it. Never rejects; see
 * check-run.ts `runCheckWith` for the classes it sets: a throw → `internal` with `output: null`,
 * the timeout → `timeout`, `opts.signal` → `cancelled`, a ProbeInputError → `rejected`.
 * @example await runCheck({ type: 'tcp', target: '198.18.1.10:443', params }, { timeout_ms: 5000, policy, log })
 */
export function runCheck<C extends CheckSpec>(check: C, opts: RunOptions): Promise<CheckRunOf<C['type']>> {
  return runCheckWith(PROBES, check, opts);
}

/**
 * {@link runCheck} with the node's settings applied to the probes that take them: the speed test's
 * byte and time caps (config `speedtest_max_bytes`, `speedtest_max_duration_ms`); `ssl.extra_ca_pem`
 * the CAs the SSL audit trusts besides the system roots (absent: NODE_EXTRA_CA_CERTS, as ssl.ts says).
 */
export function createRunCheck(settings: { speedtest: SpeedtestCaps; ssl?: { extra_ca_pem: string | null } }): <C extends CheckSpec>(check: C, opts: RunOptions) => Promise<CheckRunOf<C['type']>> {
  const probes = { ...PROBES, speedtest: createSpeedtestProbe(settings.speedtest), ...(settings.ssl ? { ssl: createSslProbe(settings.ssl) } : {}) };
  return (check, opts) => runCheckWith(probes, check, opts);
}
