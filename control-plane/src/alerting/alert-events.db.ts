import type { SqlExecutor } from '../contracts.js';
import type { OwnerScope } from '../teams/authorize.js';
import { ownedBy } from '../teams/owner-scope.db.js';
import type { AlertPolicyRow } from './alert-policies.db.js';

/** An `alert_events` row (0029_alert_events.sql). */
export interface AlertEventRow {
  id: string;
  user_id: string;
  /** Its policy's team (an event is owned like its policy), read by getEvent and listEvents; not stored. */
  team_id?: string | null;
  policy_id: string;
  monitor_id: string;
  type: 'down' | 'degraded' | 'no_data';
  status: 'firing' | 'acknowledged' | 'resolved';
  started_at: Date;
  fired_at: Date;
  acknowledged_at: Date | null;
  acknowledged_by: string | null;
  resolved_at: Date | null;
  resolved_by: string | null;
  notified_at: Date | null;
  next_level: number | null;
  next_due_at: Date | null;
  suppressed: 'silence' | 'mute' | 'maintenance' | 'late' | null;
  metadata: Record<string, unknown> | null;
  created_at: Date;
}

/** An `alert_event_notifications` row. */
export interface EventNotificationRow {
  event_id: string;
  level: number;
  channel_id: string;
  kind: 'firing' | 'acknowledged' | 'resolved';
  delivery_id: string | null;
  /** silence, mute, maintenance; withdrawn (acknowledged or resolved before its group's message went out) */
  suppressed: string | null;
  /** the alert-group batch that gathers this page (alert-batches.db.ts), else null */
  batch_id: string | null;
  created_at: Date;
}

/** What the engine needs of a monitor: the rule inputs, the template fields and the owner's zone. */
export interface EngineMonitor {
  id: string;
  user_id: string;
  /** The monitor's team (null: personal): that team's silences and maintenance windows apply to it. */
  team_id?: string | null;
  name: string;
  type: string;
  target: string | null;
  group_id: string | null;
  tags: string[];
  state: string;
  state_changed_at: Date;
  owner_tz: string;
}

const POLICY_COLUMNS = (ex: SqlExecutor) => ex`
  p.id, p.user_id, p.team_id, p.monitor_id, p.name, p.enabled, p.delay_s, p.recovery_n, p.mute_start, p.mute_end,
  p.title_template, p.body_template, p.fire_on_degraded, p.notify_on_no_data, p.created_at, p.updated_at,
  coalesce((SELECT array_agg(c.channel_id ORDER BY c.position) FROM alert_policy_channels c WHERE c.policy_id = p.id AND c.level_id IS NULL), '{}') AS channel_ids,
  coalesce((SELECT json_agg(json_build_object('id', l.id, 'level_index', l.level_index, 'after_seconds', l.after_seconds,
      'channel_ids', (SELECT coalesce(array_agg(c.channel_id ORDER BY c.position), '{}') FROM alert_policy_channels c WHERE c.level_id = l.id),
      'schedule_ids', (SELECT coalesce(array_agg(s.schedule_id ORDER BY s.position), '{}') FROM alert_escalation_level_schedules s WHERE s.level_id = l.id))
    ORDER BY l.level_index) FROM alert_escalation_levels l WHERE l.policy_id = p.id), '[]') AS escalation_levels`;

const MONITOR_COLUMNS = (ex: SqlExecutor) => ex`
  m.id, m.user_id, m.team_id, m.name, m.type, m.target, m.group_id, m.tags, m.state, m.state_changed_at,
  CASE WHEN m.team_id IS NOT NULL THEN (SELECT t.time_zone FROM teams t WHERE t.id = m.team_id)
    ELSE (SELECT u.timezone FROM users u WHERE u.id = m.user_id) END AS owner_tz`;

/** A policy as the engine reads it. */
export type EnginePolicy = AlertPolicyRow;

/** Where a page of failing candidates ended (the monitor's state_changed_at as Postgres wrote it, to the microsecond): the next page starts after it. */
export interface CandidateCursor { state_changed_at: string; policy_id: string }

/**
 * Enabled policies whose monitor is failing now (down, degraded for policies that fire on it, or
 * no_data for policies that notify on it)
 * with no open event and no event since the monitor entered that state (an outage resolved by
 * hand does not fire again until the monitor has been up); in (state_changed_at, policy id)
 * order, after `after` when given.
 */
export async function failingCandidates(ex: SqlExecutor, limit: number, after?: CandidateCursor): Promise<Array<{ policy: EnginePolicy; monitor: EngineMonitor; cursor: CandidateCursor }>> {
  const rows = await ex<Array<{ policy: EnginePolicy & { monitor_changed_at: string }; monitor: EngineMonitor }>>`
    SELECT row_to_json(pp) AS policy, row_to_json(mm) AS monitor FROM (
      SELECT ${POLICY_COLUMNS(ex)}, m.state_changed_at AS monitor_changed_at FROM alert_policies p JOIN monitors m ON m.id = p.monitor_id
      WHERE p.enabled AND (m.state = 'down' OR (m.state = 'degraded' AND p.fire_on_degraded) OR (m.state = 'no_data' AND p.notify_on_no_data))
        ${after ? ex`AND (m.state_changed_at, p.id) > (${after.state_changed_at}::timestamptz, ${after.policy_id})` : ex``}
        AND NOT EXISTS (SELECT 1 FROM alert_events e WHERE e.policy_id = p.id AND e.monitor_id = m.id
          AND (e.status <> 'resolved' OR e.started_at >= m.state_changed_at))
      ORDER BY m.state_changed_at, p.id LIMIT ${limit}) pp
    JOIN LATERAL (SELECT ${MONITOR_COLUMNS(ex)} FROM monitors m WHERE m.id = pp.monitor_id) mm ON true
    ORDER BY pp.monitor_changed_at, pp.id`;
  return rows.map((r) => {
    const { monitor_changed_at, ...policy } = r.policy;
    return { policy, monitor: { ...r.monitor, state_changed_at: new Date(r.monitor.state_changed_at) }, cursor: { state_changed_at: monitor_changed_at, policy_id: policy.id } };
  });
}

/** The verdicts of each monitor's last `n` judged rounds, newest first (monitors without any: absent). */
export async function lastVerdictsOf(ex: SqlExecutor, monitor_ids: string[], n: number): Promise<Map<string, string[]>> {
  if (monitor_ids.length === 0) return new Map();
  const rows = await ex<Array<{ id: string; verdicts: string[] }>>`
    SELECT m.id, v.verdicts FROM unnest(${monitor_ids}::text[]) AS m(id) CROSS JOIN LATERAL (
      SELECT array_agg(r.verdict ORDER BY r.scheduled_at DESC) AS verdicts FROM (
        SELECT verdict, scheduled_at FROM check_rounds WHERE monitor_id = m.id AND verdict IS NOT NULL AND counted
        ORDER BY scheduled_at DESC LIMIT ${n}) r) v
    WHERE v.verdicts IS NOT NULL`;
  return new Map(rows.map((r) => [r.id, r.verdicts]));
}

/** What a monitor's last change into down or degraded recorded (template data and the outage's start). */
export interface LastFailure { reason: string | null; failing_nodes: unknown[]; changed_at: Date }

/** The last change of each monitor into down, degraded or no_data (monitors without one: absent). */
export async function lastFailuresOf(ex: SqlExecutor, monitor_ids: string[]): Promise<Map<string, LastFailure>> {
  if (monitor_ids.length === 0) return new Map();
  const rows = await ex<Array<LastFailure & { monitor_id: string }>>`
    SELECT DISTINCT ON (monitor_id) monitor_id, reason, failing_nodes, changed_at FROM monitor_state_changes
    WHERE monitor_id = ANY(${monitor_ids}::text[]) AND superseded_at IS NULL AND to_state IN ('down', 'degraded', 'no_data')
    ORDER BY monitor_id, changed_at DESC, id DESC`;
  return new Map(rows.map(({ monitor_id, ...f }) => [monitor_id, f]));
}

/** Insert an event unless one is open for (policy, monitor). @returns the row, or null */
export async function insertEvent(ex: SqlExecutor, e: Omit<AlertEventRow, 'created_at'>, now: Date): Promise<AlertEventRow | null> {
  const [row] = await ex<AlertEventRow[]>`
    INSERT INTO alert_events (id, user_id, policy_id, monitor_id, type, status, started_at, fired_at, acknowledged_at, acknowledged_by,
      resolved_at, resolved_by, notified_at, next_level, next_due_at, suppressed, metadata, created_at)
    VALUES (${e.id}, ${e.user_id}, ${e.policy_id}, ${e.monitor_id}, ${e.type}, ${e.status}, ${e.started_at}, ${e.fired_at}, ${e.acknowledged_at}, ${e.acknowledged_by},
      ${e.resolved_at}, ${e.resolved_by}, ${e.notified_at}, ${e.next_level}, ${e.next_due_at}, ${e.suppressed}, ${e.metadata ? ex.json(e.metadata as never) : null}, ${now})
    ON CONFLICT DO NOTHING RETURNING *`;
  return row ?? null;
}

/**
 * Insert many events in one statement (ON CONFLICT DO NOTHING, like insertEvent: the one-open-event
 * index keeps a second open event of a (policy, monitor) out, whoever inserted the first).
 * @returns the ids of the rows inserted now
 */
export async function insertEvents(ex: SqlExecutor, rows: Array<Omit<AlertEventRow, 'created_at'>>, now: Date): Promise<string[]> {
  if (rows.length === 0) return [];
  const inserted = await ex<Array<{ id: string }>>`
    INSERT INTO alert_events (id, user_id, policy_id, monitor_id, type, status, started_at, fired_at, acknowledged_at, acknowledged_by,
      resolved_at, resolved_by, notified_at, next_level, next_due_at, suppressed, metadata, created_at)
    SELECT e.id, e.user_id, e.policy_id, e.monitor_id, e.type, e.status, e.started_at, e.fired_at, e.acknowledged_at, e.acknowledged_by,
      e.resolved_at, e.resolved_by, e.notified_at, e.next_level, e.next_due_at, e.suppressed, e.metadata, ${now}::timestamptz
    FROM jsonb_to_recordset(${ex.json(rows as never)}) AS e(
      id text, user_id text, policy_id text, monitor_id text, type text, status text, started_at timestamptz, fired_at timestamptz,
      acknowledged_at timestamptz, acknowledged_by text, resolved_at timestamptz, resolved_by text, notified_at timestamptz,
      next_level int, next_due_at timestamptz, suppressed text, metadata jsonb)
    ON CONFLICT DO NOTHING RETURNING id`;
  return inserted.map((r) => r.id);
}

/**
 * The earliest instant the engine has work planned for: a firing event's next step
 * (`next_due_at`) or an open alert-group batch's flush (`flush_at`); null when none is planned.
 * Both read from their due indexes (0029, 0034).
 */
export async function nextPlannedAt(ex: SqlExecutor): Promise<Date | null> {
  const [row] = await ex<Array<{ at: Date | null }>>`
    SELECT least(
      (SELECT min(next_due_at) FROM alert_events WHERE next_due_at IS NOT NULL AND status = 'firing'),
      (SELECT min(flush_at) FROM alert_group_batches WHERE flushed_at IS NULL)) AS at`;
  return row?.at ?? null;
}

/** Claim firing events whose next step is due at `now` (FOR UPDATE SKIP LOCKED: other instances take others). */
export async function claimDueEvents(ex: SqlExecutor, now: Date, limit: number): Promise<AlertEventRow[]> {
  return ex<AlertEventRow[]>`
    SELECT * FROM alert_events WHERE next_due_at <= ${now} AND status = 'firing'
    ORDER BY next_due_at LIMIT ${limit} FOR UPDATE SKIP LOCKED`;
}

/**
 * Claim open events whose condition ended (FOR UPDATE SKIP LOCKED): the monitor is up again, or a
 * `no_data` event whose monitor reports again but fails (the failure then opens its own event);
 * not those whose resolution a flap rule holds until after `now` (resolve_held_until, 0059).
 */
export async function claimRecovered(ex: SqlExecutor, limit: number, now: Date): Promise<AlertEventRow[]> {
  return ex<AlertEventRow[]>`
    SELECT e.* FROM alert_events e JOIN monitors m ON m.id = e.monitor_id
    WHERE e.status <> 'resolved' AND (m.state = 'up' OR (e.type = 'no_data' AND m.state IN ('down', 'degraded')))
      AND (e.resolve_held_until IS NULL OR e.resolve_held_until <= ${now})
    ORDER BY e.started_at LIMIT ${limit} FOR UPDATE OF e SKIP LOCKED`;
}

/** Policies by id, with channels and levels (one read for a batch of steps; disabled ones too: their open events still resolve). */
export async function policiesByIds(ex: SqlExecutor, ids: string[]): Promise<EnginePolicy[]> {
  if (ids.length === 0) return [];
  return ex<EnginePolicy[]>`SELECT ${POLICY_COLUMNS(ex)} FROM alert_policies p WHERE p.id = ANY(${ids}::text[])`;
}

/** Monitors by id as the engine reads them (one read for a batch of steps). */
export async function monitorsByIds(ex: SqlExecutor, ids: string[]): Promise<EngineMonitor[]> {
  if (ids.length === 0) return [];
  return ex<EngineMonitor[]>`SELECT ${MONITOR_COLUMNS(ex)} FROM monitors m WHERE m.id = ANY(${ids}::text[])`;
}

/** Channels by id (type and owner, for queueing). */
export async function channelsByIds(ex: SqlExecutor, ids: string[]): Promise<Array<{ id: string; type: string; user_id: string }>> {
  if (ids.length === 0) return [];
  return ex<Array<{ id: string; type: string; user_id: string }>>`SELECT id, type, user_id FROM alert_channels WHERE id = ANY(${ids}::text[])`;
}

/** Update an event's status and schedule fields. */
export async function updateEvent(ex: SqlExecutor, id: string, p: Partial<Pick<AlertEventRow,
  'status' | 'acknowledged_at' | 'acknowledged_by' | 'resolved_at' | 'resolved_by' | 'notified_at' | 'next_level' | 'next_due_at'>>): Promise<AlertEventRow> {
  const [row] = await ex<AlertEventRow[]>`UPDATE alert_events SET ${ex(p as never, Object.keys(p) as never)} WHERE id = ${id} RETURNING *`;
  return row!;
}

/** An event's next step after a step ran (`notified_at`: its first page). */
export interface StepSchedule { id: string; notified_at: Date | null; next_level: number | null; next_due_at: Date | null }

/** Set the schedules of many events in one statement. */
export async function updateSchedules(ex: SqlExecutor, rows: StepSchedule[]): Promise<void> {
  if (rows.length === 0) return;
  await ex`
    UPDATE alert_events e SET notified_at = u.notified_at, next_level = u.next_level, next_due_at = u.next_due_at
    FROM jsonb_to_recordset(${ex.json(rows as never)}) AS u(id text, notified_at timestamptz, next_level integer, next_due_at timestamptz)
    WHERE e.id = u.id`;
}

/** Record notifications (a repeat of one already recorded is ignored). */
export async function recordNotifications(ex: SqlExecutor, rows: EventNotificationRow[]): Promise<void> {
  if (rows.length === 0) return;
  await ex`INSERT INTO alert_event_notifications ${ex(rows as never)} ON CONFLICT DO NOTHING`;
}

/** The channels an event paged (firing notifications actually queued), with the level each was paged at. */
export async function pagedChannels(ex: SqlExecutor, event_id: string): Promise<Array<{ level: number; channel_id: string }>> {
  return ex<Array<{ level: number; channel_id: string }>>`
    SELECT level, channel_id FROM alert_event_notifications
    WHERE event_id = ${event_id} AND kind = 'firing' AND delivery_id IS NOT NULL ORDER BY level, created_at`;
}

/** An event's notifications, in order. */
export async function eventNotifications(ex: SqlExecutor, event_id: string): Promise<EventNotificationRow[]> {
  return ex<EventNotificationRow[]>`SELECT * FROM alert_event_notifications WHERE event_id = ${event_id} ORDER BY created_at, level, kind, channel_id`;
}

/**
 * An event by id with its policy's team (`lock`: FOR UPDATE, inside a transaction), or null;
 * routes authorize on (user_id, team_id) first: an event is owned like its policy.
 */
export async function getEvent(ex: SqlExecutor, id: string, lock = false): Promise<AlertEventRow | null> {
  const [row] = await ex<AlertEventRow[]>`
    SELECT e.*, p.team_id FROM alert_events e JOIN alert_policies p ON p.id = e.policy_id
    WHERE e.id = ${id} ${lock ? ex`FOR UPDATE OF e` : ex``}`;
  return row ?? null;
}

/** The events whose policy is in `scope` (teams/authorize.ts ownerScope), newest first, filtered; with the total count. */
export async function listEvents(ex: SqlExecutor, scope: OwnerScope, f: {
  status?: string; monitor_id?: string; from?: Date; to?: Date; limit: number; offset: number;
}): Promise<{ rows: AlertEventRow[]; total: number }> {
  const where = ex`${ownedBy(ex, scope, 'p')}
    ${f.status ? ex`AND e.status = ${f.status}` : ex``}
    ${f.monitor_id ? ex`AND e.monitor_id = ${f.monitor_id}` : ex``}
    ${f.from ? ex`AND e.started_at >= ${f.from}` : ex``}
    ${f.to ? ex`AND e.started_at < ${f.to}` : ex``}`;
  const from = ex`alert_events e JOIN alert_policies p ON p.id = e.policy_id`;
  const [count] = await ex<Array<{ total: number }>>`SELECT count(*)::int AS total FROM ${from} WHERE ${where}`;
  const rows = await ex<AlertEventRow[]>`SELECT e.*, p.team_id FROM ${from} WHERE ${where} ORDER BY e.started_at DESC, e.id DESC LIMIT ${f.limit} OFFSET ${f.offset}`;
  return { rows, total: count?.total ?? 0 };
}

/** The enabled policies of a monitor. */
export async function enabledPolicies(ex: SqlExecutor, monitor_id: string): Promise<EnginePolicy[]> {
  return ex<EnginePolicy[]>`SELECT ${POLICY_COLUMNS(ex)} FROM alert_policies p WHERE p.monitor_id = ${monitor_id} AND p.enabled ORDER BY p.created_at, p.id`;
}

/** Whether (policy, monitor) has an open event. */
export async function hasOpenEvent(ex: SqlExecutor, policy_id: string, monitor_id: string): Promise<boolean> {
  const rows = await ex`SELECT 1 FROM alert_events WHERE policy_id = ${policy_id} AND monitor_id = ${monitor_id} AND status <> 'resolved'`;
  return rows.length > 0;
}
