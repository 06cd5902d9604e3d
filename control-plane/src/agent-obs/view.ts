import { AGENT_OBS_CHECK_TYPES, type AgentObsCheck, type AgentObsConfig, type AgentObsEvent, type AgentObsMonitor } from '@vantage/shared-protocol';
import type { AgentObsEventRow } from './events.db.js';
import type { AgentObsMonitorRow } from './monitors.db.js';

/**
 * The API shape of an agent-obs monitor (docs/api/agent-obs.md). `headers` are the backing
 * monitor's, masked (the caller passes them: they are kept sealed there, never on this row).
 */
export function toAgentObsMonitor(row: AgentObsMonitorRow, headers: Record<string, string> | undefined): AgentObsMonitor {
  const endpoint_config = headers && Object.keys(headers).length > 0 ? { ...row.endpoint_config, headers } : row.endpoint_config;
  return {
    id: row.id, owner_id: row.user_id, agent_name: row.agent_name, type: row.type, endpoint_url: row.endpoint_url,
    frequency_seconds: row.frequency_seconds, failure_threshold: row.failure_threshold, budget_per_check_usd: row.budget_per_check_usd,
    budget_monthly_usd: row.budget_monthly_usd, step_name: row.step_name, endpoint_config, notification_channels: row.notification_channels,
    status: row.status, paused_at: row.paused_at?.toISOString() ?? null, total_cost_this_month_usd: row.total_cost_this_month_usd,
    check_monitor_id: row.monitor_id, created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString(),
  };
}

/** The API shape of an event. */
export function toAgentObsEvent(row: AgentObsEventRow): AgentObsEvent {
  return {
    id: row.id, monitor_id: row.monitor_id, owner_id: row.user_id, occurred_at: row.occurred_at.toISOString(), success: row.success,
    latency_ms: row.latency_ms, cost_usd: row.cost_usd, failure_class: row.failure_class as AgentObsEvent['failure_class'],
    failure_detail: row.failure_detail, region: row.region, trace_id: row.trace_id,
  };
}

/**
 * The check record of an event: `status` up/down, `error_code` the failure class in upper case
 * (`TIMEOUT`, `5XX`, `MALFORMED`, …).
 */
export function toAgentObsCheck(row: AgentObsEventRow): AgentObsCheck {
  return {
    id: row.id, monitor_id: row.monitor_id, obs_type: row.obs_type, checked_at: row.occurred_at.toISOString(),
    status: row.success ? 'up' : 'down', latency_ms: row.latency_ms, tokens_used: row.tokens_used,
    error_code: row.failure_class ? row.failure_class.toUpperCase() : null, response_preview: row.response_preview,
  };
}

/** The agent-obs config of a monitor. */
export function toAgentObsConfig(row: AgentObsMonitorRow): AgentObsConfig {
  const o = row.check_options as { expected_tokens_max?: number | null; model_name?: string | null; payload_template?: Record<string, unknown> | null };
  const latency = (row.failure_threshold as { latency?: number }).latency;
  return {
    monitor_id: row.id, obs_type: AGENT_OBS_CHECK_TYPES[row.type], endpoint_url: row.endpoint_url, check_interval_s: row.frequency_seconds,
    latency_sla_ms: latency ?? null, expected_tokens_max: o.expected_tokens_max ?? null,
    model_name: o.model_name ?? (row.endpoint_config as { model?: string }).model ?? null, payload_template: o.payload_template ?? null,
    created_at: row.config_created_at.toISOString(), updated_at: row.config_updated_at.toISOString(),
  };
}
