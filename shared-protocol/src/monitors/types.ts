import { z } from 'zod';
import { LIMITS } from '../limits.js';

/*
 * Monitor vocabulary (docs/api/probes.md; docs/api/monitors.md): the check types, the
 * user-set status, the derived state and the limits the monitor API applies.
 */

/**
 * Every monitor type: the fourteen monitor types of the API plus traceroute, which the API's endpoint
 * description also lists.
 */
export const MONITOR_TYPES = [
  'http', 'https', 'ping', 'tcp', 'dns', 'ssl_expiry', 'domain_expiry', 'keyword', 'rbl',
  'llm_endpoint', 'tool_api', 'rag', 'heartbeat', 'browser', 'traceroute',
] as const;
export const monitorTypeSchema = z.enum(MONITOR_TYPES);
export type MonitorType = z.infer<typeof monitorTypeSchema>;

/**
 * Types the control plane checks itself (heartbeat: check-ins received by the API; domain_expiry:
 * registry look-ups); they run on no node, so `node_count` is 0 for them. Every other type runs
 * on `node_count` probe nodes.
 */
export const CONTROL_PLANE_MONITOR_TYPES = ['heartbeat', 'domain_expiry'] as const satisfies readonly MonitorType[];

/** True when monitors of `type` run on the control plane, not on nodes. */
export function runsOnControlPlane(type: MonitorType): boolean {
  return (CONTROL_PLANE_MONITOR_TYPES as readonly string[]).includes(type);
}

/** What the user set (docs/api/probes.md): `active` runs, `paused` does not. */
export const MONITOR_STATUSES = ['active', 'paused'] as const;
export const monitorStatusSchema = z.enum(MONITOR_STATUSES);
export type MonitorStatus = z.infer<typeof monitorStatusSchema>;

/**
 * What the checks say: `pending` until the first round is judged (and after a resume), then
 * `up`, `degraded` or `down` from each round's verdict; `no_data` after two rounds in a row that
 * no node reported by their deadline (left at the first round with a report); `paused` while
 * paused; `maintenance` inside a maintenance window.
 */
export const MONITOR_STATES = ['pending', 'up', 'degraded', 'down', 'paused', 'maintenance', 'no_data'] as const;
export const monitorStateSchema = z.enum(MONITOR_STATES);
export type MonitorState = z.infer<typeof monitorStateSchema>;

/** Limits of the monitor API: docs/api/conventions.md where it gives them, ours (named so) otherwise. */
export const MONITOR_LIMITS = {
  /** Monitor and group names (docs/api/conventions.md). */
  name_max_chars: LIMITS.monitor_name_max_chars,
  /** Allowed intervals, seconds (docs/api/conventions.md), the default, and the browser minimum. */
  intervals_s: LIMITS.monitor_intervals_s,
  interval_s_default: LIMITS.monitor_interval_s_default,
  browser_interval_s_min: 300,
  /** Ours: a target (URL, host, host:port, domain or IP). */
  target_max_chars: 2048,
  /** Ours: tags per monitor and characters per tag. */
  tags_max: 20,
  tag_max_chars: 64,
  /** Ours: the most nodes one monitor may ask for, whatever the plan. */
  node_count_max: 100,
  /** Ours: assertions per monitor (HTTP-like and browser). */
  assertions_max: 20,
  /** Ours: monitors in one import request (the 32 KB body limit usually comes first). */
  import_items_max: 500,
  /** Pagination of GET /v1/monitors (docs/api/monitors.md). */
  list_limit_default: LIMITS.list_limit_default,
  list_limit_max: LIMITS.list_limit_max,
} as const;
