import type { AlertNoiseKind } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';
import type { Sql } from '../db/sql.js';
import type { Owner, OwnerScope } from '../teams/authorize.js';
import { ownedBy } from '../teams/owner-scope.db.js';

/** An `alert_noise_rules` row (0050_alert_noise_rules.sql). */
export interface NoiseRuleRow {
  id: string;
  user_id: string;
  team_id: string | null;
  name: string;
  kind: AlertNoiseKind;
  enabled: boolean;
  monitor_ids: string[];
  tags: string[];
  flap_changes: number | null;
  flap_window_s: number | null;
  duplicate_match: 'host' | 'target' | null;
  min_down_s: number | null;
  created_at: Date;
  updated_at: Date;
}

/** The fields create and update write. */
export type NoiseRuleFields = Pick<NoiseRuleRow, 'name' | 'enabled' | 'monitor_ids' | 'tags' | 'flap_changes' | 'flap_window_s' | 'duplicate_match' | 'min_down_s'>;

/** The rules in `scope` (optionally of one kind), oldest first. */
export async function listNoiseRules(sql: Sql, scope: OwnerScope, kind?: AlertNoiseKind): Promise<NoiseRuleRow[]> {
  return sql<NoiseRuleRow[]>`
    SELECT * FROM alert_noise_rules WHERE ${ownedBy(sql, scope)} ${kind ? sql`AND kind = ${kind}` : sql``}
    ORDER BY created_at, id`;
}

/** One rule by id, whoever owns it (the route authorizes), or null. */
export async function getNoiseRule(sql: Sql, id: string): Promise<NoiseRuleRow | null> {
  const [row] = await sql<NoiseRuleRow[]>`SELECT * FROM alert_noise_rules WHERE id = ${id}`;
  return row ?? null;
}

/** Insert a rule of `owner`. @returns the row */
export async function insertNoiseRule(sql: Sql, id: string, owner: Owner, kind: AlertNoiseKind, f: NoiseRuleFields): Promise<NoiseRuleRow> {
  const [row] = await sql<NoiseRuleRow[]>`
    INSERT INTO alert_noise_rules (id, user_id, team_id, name, kind, enabled, monitor_ids, tags, flap_changes, flap_window_s, duplicate_match, min_down_s)
    VALUES (${id}, ${owner.user_id}, ${owner.team_id}, ${f.name}, ${kind}, ${f.enabled}, ${f.monitor_ids}::text[], ${f.tags}::text[],
      ${f.flap_changes}, ${f.flap_window_s}, ${f.duplicate_match}, ${f.min_down_s})
    RETURNING *`;
  return row!;
}

/** Replace a rule's fields (the route merged the PATCH; `team_id` given: a move, teams/move.ts). @returns the row, or null when it is gone */
export async function updateNoiseRule(sql: Sql, id: string, f: NoiseRuleFields, team_id?: string | null): Promise<NoiseRuleRow | null> {
  const [row] = await sql<NoiseRuleRow[]>`
    UPDATE alert_noise_rules SET name = ${f.name}, enabled = ${f.enabled}, monitor_ids = ${f.monitor_ids}::text[], tags = ${f.tags}::text[],
      flap_changes = ${f.flap_changes}, flap_window_s = ${f.flap_window_s}, duplicate_match = ${f.duplicate_match}, min_down_s = ${f.min_down_s},
      team_id = ${team_id === undefined ? sql`team_id` : team_id}, updated_at = now()
    WHERE id = ${id} RETURNING *`;
  return row ?? null;
}

/** Delete a rule. @returns whether it existed */
export async function deleteNoiseRule(sql: Sql, id: string): Promise<boolean> {
  return (await sql`DELETE FROM alert_noise_rules WHERE id = ${id} RETURNING id`).length > 0;
}

/** Which of `ids` are monitors of `owner` (the team's when it is a team's, else the user's personal ones). */
export async function monitorsOfOwner(sql: Sql, owner: Owner, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await sql<Array<{ id: string }>>`
    SELECT id FROM monitors WHERE id = ANY(${ids}::text[])
      AND ${owner.team_id === null ? sql`team_id IS NULL AND user_id = ${owner.user_id}` : sql`team_id = ${owner.team_id}`}`;
  return new Set(rows.map((r) => r.id));
}

/* ---- what the alert engine reads (noise.ts) ---- */

/** A monitor as the noise rules see it: its owner, tags and target. */
export interface NoiseMonitor { id: string; user_id: string; team_id: string | null; tags: string[]; target: string | null }

/** What the engine reads of a rule. */
export type EngineNoiseRule = Pick<NoiseRuleRow, 'id' | 'kind' | 'flap_changes' | 'flap_window_s' | 'duplicate_match' | 'min_down_s'>;

/**
 * The enabled rules that apply to monitor `monitor_id` (one query: it runs at every engine step):
 * of the monitor's owner (its team, or its creator for a personal monitor), with an empty scope,
 * the monitor listed, or one of its tags; oldest first. Null when the monitor is gone.
 */
export async function rulesOfMonitor(ex: SqlExecutor, monitor_id: string): Promise<{ monitor: NoiseMonitor; rules: EngineNoiseRule[] } | null> {
  return (await rulesOfMonitors(ex, [monitor_id])).get(monitor_id) ?? null;
}

/**
 * rulesOfMonitor for many monitors in one query (a batch of engine steps reads them once).
 * @returns by monitor id; monitors that are gone are absent
 */
export async function rulesOfMonitors(ex: SqlExecutor, monitor_ids: string[]): Promise<Map<string, { monitor: NoiseMonitor; rules: EngineNoiseRule[] }>> {
  if (monitor_ids.length === 0) return new Map();
  const rows = await ex<Array<NoiseMonitor & { rules: EngineNoiseRule[] }>>`
    SELECT m.id, m.user_id, m.team_id, m.tags, m.target, coalesce((
      SELECT json_agg(json_build_object('id', r.id, 'kind', r.kind, 'flap_changes', r.flap_changes, 'flap_window_s', r.flap_window_s,
          'duplicate_match', r.duplicate_match, 'min_down_s', r.min_down_s) ORDER BY r.created_at, r.id)
        FROM alert_noise_rules r WHERE r.enabled
          AND ((m.team_id IS NULL AND r.team_id IS NULL AND r.user_id = m.user_id) OR r.team_id = m.team_id)
          AND ((cardinality(r.monitor_ids) = 0 AND cardinality(r.tags) = 0) OR m.id = ANY(r.monitor_ids) OR r.tags && m.tags)), '[]') AS rules
    FROM monitors m WHERE m.id = ANY(${[...new Set(monitor_ids)]}::text[])`;
  return new Map(rows.map(({ rules, ...monitor }) => [monitor.id, { monitor, rules }]));
}

/** When monitor `monitor_id` changed state from `since` on (superseded changes left out), oldest first. */
export async function stateChangesSince(ex: SqlExecutor, monitor_id: string, since: Date): Promise<Date[]> {
  const rows = await ex<Array<{ changed_at: Date }>>`
    SELECT changed_at FROM monitor_state_changes WHERE monitor_id = ${monitor_id} AND superseded_at IS NULL AND changed_at >= ${since}
    ORDER BY changed_at, id LIMIT 10000`;
  return rows.map((r) => r.changed_at);
}

/** Whether an event of monitor `monitor_id` paged (a firing notification queued or gathered) from `since` on. */
export async function monitorPagedSince(ex: SqlExecutor, monitor_id: string, since: Date): Promise<boolean> {
  const rows = await ex`
    SELECT 1 FROM alert_event_notifications n JOIN alert_events e ON e.id = n.event_id
    WHERE e.monitor_id = ${monitor_id} AND n.kind = 'firing' AND (n.delivery_id IS NOT NULL OR n.batch_id IS NOT NULL) AND n.created_at >= ${since}
    LIMIT 1`;
  return rows.length > 0;
}

/**
 * Open events (firing or acknowledged) that paged, of the other monitors of `m`'s owner, with
 * their monitors' targets: the candidates a duplicate rule compares `m`'s target with.
 */
export async function pagedOpenEventsOfOwner(ex: SqlExecutor, m: NoiseMonitor): Promise<Array<{ event_id: string; monitor_id: string; target: string | null }>> {
  return ex<Array<{ event_id: string; monitor_id: string; target: string | null }>>`
    SELECT e.id AS event_id, mo.id AS monitor_id, mo.target FROM monitors mo JOIN alert_events e ON e.monitor_id = mo.id
    WHERE ${m.team_id === null ? ex`mo.team_id IS NULL AND mo.user_id = ${m.user_id}` : ex`mo.team_id = ${m.team_id}`}
      AND mo.id <> ${m.id} AND mo.target IS NOT NULL AND e.status <> 'resolved'
      AND EXISTS (SELECT 1 FROM alert_event_notifications n WHERE n.event_id = e.id AND n.kind = 'firing' AND (n.delivery_id IS NOT NULL OR n.batch_id IS NOT NULL))
    ORDER BY e.fired_at, e.id`;
}

/**
 * Serialize the duplicate decision of one (owner, target) across engine instances: a transaction
 * lock on the key, held until commit, so a second instance sees the first one's page.
 */
export async function lockTarget(ex: SqlExecutor, key: string): Promise<void> {
  await ex`SELECT pg_advisory_xact_lock(hashtext(${`alert-noise:${key}`}))`;
}

/**
 * Hold the resolution of event `event_id` until `until` (the engine looks again then), with
 * metadata keys merged in (the flap's marks).
 */
export async function holdResolve(ex: SqlExecutor, event_id: string, until: Date, metadata: Record<string, unknown>): Promise<void> {
  await ex`
    UPDATE alert_events SET resolve_held_until = ${until}, metadata = coalesce(metadata, '{}'::jsonb) || ${ex.json(metadata as never)}::jsonb
    WHERE id = ${event_id}`;
}

/** The flap rules of each monitor of `monitor_ids` that has any, and its state changes from `since` on, oldest first. */
export interface FlapFacts { monitor_id: string; rules: Array<{ id: string; flap_changes: number; flap_window_s: number }>; changes: Date[] }

/**
 * A column `flap` for the `monitors` row of the statement it is put in (a list page: its rows and
 * their flap facts in one statement): null when no enabled flap rule of its owner applies to it
 * (the scope of {@link rulesOfMonitor}), else `{ rules, changes }` as in {@link FlapFacts} (rules
 * oldest first; its state changes from `since` on, ISO times, oldest first). Read with
 * {@link flapFactsOfColumn}.
 */
export function flapColumn(ex: SqlExecutor, since: Date) {
  return ex`(SELECT CASE WHEN x.rules IS NOT NULL THEN json_build_object('rules', x.rules, 'changes', ARRAY(
      SELECT c.changed_at FROM monitor_state_changes c
      WHERE c.monitor_id = monitors.id AND c.superseded_at IS NULL AND c.changed_at >= ${since} ORDER BY c.changed_at, c.id)) END
    FROM (SELECT json_agg(json_build_object('id', r.id, 'flap_changes', r.flap_changes, 'flap_window_s', r.flap_window_s) ORDER BY r.created_at, r.id) AS rules
      FROM alert_noise_rules r WHERE r.enabled AND r.kind = 'flap'
        AND ((monitors.team_id IS NULL AND r.team_id IS NULL AND r.user_id = monitors.user_id) OR r.team_id = monitors.team_id)
        AND ((cardinality(r.monitor_ids) = 0 AND cardinality(r.tags) = 0) OR monitors.id = ANY(r.monitor_ids) OR r.tags && monitors.tags)) x) AS flap`;
}

/** The value of {@link flapColumn}. */
export type FlapColumn = { rules: FlapFacts['rules']; changes: string[] } | null;

/** What {@link flapColumn} read for monitor `monitor_id`, as {@link FlapFacts}; null when no flap rule applies. */
export function flapFactsOfColumn(monitor_id: string, flap: FlapColumn): FlapFacts | null {
  return flap === null ? null : { monitor_id, rules: flap.rules, changes: flap.changes.map((c) => new Date(c)) };
}

/**
 * For monitors `monitor_ids`, those that enabled flap rules of their owner apply to (the scope of
 * {@link rulesOfMonitor}), with those rules (oldest first) and their state changes from `since`
 * on: one statement whatever the number of monitors ({@link flapColumn}).
 */
export async function flapFactsOf(ex: SqlExecutor, monitor_ids: string[], since: Date): Promise<FlapFacts[]> {
  if (monitor_ids.length === 0) return [];
  const rows = await ex<Array<{ id: string; flap: FlapColumn }>>`
    SELECT monitors.id, ${flapColumn(ex, since)} FROM monitors WHERE monitors.id = ANY(${monitor_ids}::text[])`;
  return rows.flatMap((r) => flapFactsOfColumn(r.id, r.flap) ?? []);
}

/** Record on an event what a noise rule did: `suppressed` (its first page held back) and metadata keys merged in. */
export async function markEventNoise(ex: SqlExecutor, event_id: string, p: { suppressed?: 'flapping' | 'duplicate'; metadata: Record<string, unknown> }): Promise<void> {
  await ex`
    UPDATE alert_events SET metadata = coalesce(metadata, '{}'::jsonb) || ${ex.json(p.metadata as never)}::jsonb
      ${p.suppressed ? ex`, suppressed = coalesce(suppressed, ${p.suppressed})` : ex``}
    WHERE id = ${event_id}`;
}
