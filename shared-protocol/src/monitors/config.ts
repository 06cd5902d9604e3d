import { z } from 'zod';
import { fieldIssues, type FieldIssue } from '../parse.js';
import { browserMonitorConfigSchema } from './config-browser.js';
import { heartbeatMonitorConfigSchema } from './config-heartbeat.js';
import { agentEndpointMonitorConfigSchema, httpMonitorConfigSchema, httpsMonitorConfigSchema, keywordMonitorConfigSchema } from './config-http.js';
import {
  dnsMonitorConfigSchema, domainExpiryMonitorConfigSchema, pingMonitorConfigSchema, rblMonitorConfigSchema,
  sslExpiryMonitorConfigSchema, tcpMonitorConfigSchema, tracerouteMonitorConfigSchema,
} from './config-network.js';
import { MONITOR_LIMITS, type MonitorType } from './types.js';

/**
 * `down_quorum`, in the config of every type nodes run: how many failed nodes make a round `down`
 * (docs/api/monitors.md "Rounds and verdicts"); absent = more than half of the placed nodes. A
 * quorum above the placed nodes counts as all of them.
 */
export const downQuorumSchema = z.number().int().min(1).max(MONITOR_LIMITS.node_count_max).optional();
const QUORUM = { down_quorum: downQuorumSchema };

/**
 * The config schema of every monitor type: the one place that maps a type to its `config`
 * ( "type-specific raw JSON … defaults are filled by the service"). Each is strict: an
 * unknown field is refused, so a typo never passes silently. Types run on nodes also take
 * `down_quorum` ({@link downQuorumSchema}).
 */
export const MONITOR_CONFIGS = {
  http: httpMonitorConfigSchema.extend(QUORUM),
  https: httpsMonitorConfigSchema.extend(QUORUM),
  keyword: keywordMonitorConfigSchema.extend(QUORUM),
  llm_endpoint: agentEndpointMonitorConfigSchema.extend(QUORUM),
  tool_api: agentEndpointMonitorConfigSchema.extend(QUORUM),
  rag: agentEndpointMonitorConfigSchema.extend(QUORUM),
  ping: pingMonitorConfigSchema.extend(QUORUM),
  tcp: tcpMonitorConfigSchema.extend(QUORUM),
  dns: dnsMonitorConfigSchema.extend(QUORUM),
  traceroute: tracerouteMonitorConfigSchema.extend(QUORUM),
  ssl_expiry: sslExpiryMonitorConfigSchema.extend(QUORUM),
  domain_expiry: domainExpiryMonitorConfigSchema,
  rbl: rblMonitorConfigSchema.extend(QUORUM),
  heartbeat: heartbeatMonitorConfigSchema,
  browser: browserMonitorConfigSchema.extend(QUORUM),
} as const satisfies Record<MonitorType, z.ZodType>;

/** The validated config of a monitor of type `T`, defaults filled. */
export type MonitorConfig<T extends MonitorType = MonitorType> = z.infer<(typeof MONITOR_CONFIGS)[T]>;

/**
 * Validate a monitor's raw `config` for `type` and fill its defaults. `undefined` and `null` are
 * an empty config (every default).
 * @returns `{ ok: true, config }`, or `{ ok: false, issues }` with paths under `config.`
 */
export function parseMonitorConfig<T extends MonitorType>(type: T, raw: unknown):
  { ok: true; config: MonitorConfig<T> } | { ok: false; issues: FieldIssue[] } {
  const parsed = (MONITOR_CONFIGS[type] as z.ZodType).safeParse(raw ?? {});
  if (parsed.success) return { ok: true, config: parsed.data as MonitorConfig<T> };
  return { ok: false, issues: fieldIssues(parsed.error).map((i) => ({ path: i.path ? `config.${i.path}` : 'config', message: i.message })) };
}
