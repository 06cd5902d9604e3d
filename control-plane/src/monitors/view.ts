import type { ExportMonitor, Monitor, MonitorGroup } from '@vantage/shared-protocol';
import { isoTime } from '../http/iso-time.js';
import type { GroupRow } from './monitor-groups.db.js';
import type { MonitorRow } from './monitors.db.js';
import { placementOf } from './placement-status.js';

/**
 * The monitor record (docs/api/monitors.md) from its row (`placement` from its live placement and
 * headers: placement-status.ts). `heartbeat` carries the
 * token's preview; pass `token` and `url` only right after creating or rotating it.
 * `flapping_since`: when its flap began while it is flapping (alerting/flap-marks.ts), else absent.
 */
export function toMonitor(row: MonitorRow, heartbeat?: { token: string; url: string }, flapping_since?: Date): Monitor {
  return {
    id: row.id, user_id: row.user_id, team_id: row.team_id, name: row.name, type: row.type, target: row.target, config: row.config,
    interval_s: row.interval_s, node_count: row.node_count, group_id: row.group_id, tags: row.tags,
    status: row.status, state: row.state, private_target: row.private_target, node_ids: row.node_ids, placement: placementOf(row),
    heartbeat: row.type === 'heartbeat' ? { token_preview: row.heartbeat_token_preview ?? '', ...heartbeat } : null,
    last_check_at: row.last_check_at ? isoTime(row.last_check_at) : null,
    uptime_24h: row.uptime_24h === null ? null : Math.min(1, Math.max(0, Math.round(row.uptime_24h * 1e6) / 1e6)),
    state_changed_at: isoTime(row.state_changed_at),
    flapping: flapping_since !== undefined, flapping_since: flapping_since ? isoTime(flapping_since) : null,
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
  };
}

/** A monitor group record. */
export function toGroup(row: GroupRow): MonitorGroup {
  return {
    id: row.id, user_id: row.user_id, team_id: row.team_id, name: row.name, sort_order: row.sort_order, monitor_count: row.monitor_count,
    created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString(),
  };
}

/**
 * The ExportMonitor projection (docs/api/monitors.md): no runtime fields; `group` is the group's name (empty
 * when ungrouped); `target` left out for heartbeat, `config` when empty.
 */
export function toExportMonitor(row: MonitorRow, group_name: string | undefined): ExportMonitor {
  return {
    name: row.name, type: row.type, ...(row.target !== null ? { target: row.target } : {}),
    interval_s: row.interval_s, node_count: row.node_count, tags: row.tags, group: group_name ?? '',
    ...(Object.keys(row.config).length > 0 ? { config: row.config } : {}),
  };
}
