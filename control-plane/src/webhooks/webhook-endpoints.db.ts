import type { Sql } from '../db/sql.js';
import type { SqlExecutor } from '../contracts.js';
import { deleteDestinationDeliveries } from '../delivery/delivery-log.db.js';
import type { Owner, OwnerScope } from '../teams/authorize.js';
import { ownedBy } from '../teams/owner-scope.db.js';

/** A `webhook_endpoints` row (0016_webhook_endpoints.sql; team_id from 0046_teams.sql). */
export interface EndpointRow {
  id: string;
  /** Its creator; the owner when team_id is null. */
  user_id: string;
  /** The team that owns it (it receives the team's events), or null: personal. */
  team_id: string | null;
  url: string;
  description: string | null;
  events: string[];
  enabled: boolean;
  disabled_reason: 'failing' | 'user' | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** The delivery channel of webhook endpoints (destination = endpoint id). */
export const WEBHOOK_CHANNEL = 'webhook';

/** SQL condition "the endpoint belongs to `owner`": the team's endpoints, or the user's personal ones. */
function ofOwner(ex: SqlExecutor, owner: Owner) {
  return owner.team_id === null ? ex`team_id IS NULL AND user_id = ${owner.user_id}` : ex`team_id = ${owner.team_id}`;
}

/**
 * Insert an endpoint unless its owner (the team, or the account for a personal endpoint) already
 * has `max` (checked under a per-owner advisory lock, so two concurrent creates cannot both pass).
 * @returns the row, or null when the owner is at its limit
 */
export async function insertEndpoint(sql: Sql, e: Owner & { id: string; url: string; description: string | null; events: string[]; secret: string }, max: number): Promise<EndpointRow | null> {
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(hashtext(${`webhook_endpoints:${e.team_id ?? e.user_id}`}))`;
    const [count] = await tx<{ n: number }[]>`SELECT count(*)::int AS n FROM webhook_endpoints WHERE ${ofOwner(tx, e)}`;
    if (count!.n >= max) return null;
    const [row] = await tx<EndpointRow[]>`
      INSERT INTO webhook_endpoints (id, user_id, team_id, url, description, events, secret)
      VALUES (${e.id}, ${e.user_id}, ${e.team_id}, ${e.url}, ${e.description}, ${e.events}, ${e.secret})
      RETURNING *`;
    return row!;
  });
}

/** How many endpoints `owner` has (an account's own, or a team's): the limit a move checks. */
export async function countEndpoints(ex: SqlExecutor, owner: Owner): Promise<number> {
  const [row] = await ex<{ n: number }[]>`SELECT count(*)::int AS n FROM webhook_endpoints WHERE ${ofOwner(ex, owner)}`;
  return row!.n;
}

/** The endpoints in `scope` (teams/authorize.ts ownerScope), oldest first, with the total. */
export async function listEndpoints(sql: Sql, scope: OwnerScope, page: number, page_size: number): Promise<{ rows: EndpointRow[]; total: number }> {
  const rows = await sql<Array<EndpointRow & { total: number }>>`
    SELECT *, count(*) OVER ()::int AS total FROM webhook_endpoints WHERE ${ownedBy(sql, scope)}
    ORDER BY created_at, id LIMIT ${page_size} OFFSET ${(page - 1) * page_size}`;
  let total = rows[0]?.total ?? 0;
  if (rows.length === 0 && page > 1) {
    const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM webhook_endpoints WHERE ${ownedBy(sql, scope)}`;
    total = row!.n;
  }
  return { rows, total };
}

/** The endpoint `id` whoever owns it (routes decide access with teams/authorize.ts; the sender), or null. */
export async function getEndpointById(sql: Sql, id: string): Promise<EndpointRow | null> {
  const [row] = await sql<EndpointRow[]>`SELECT * FROM webhook_endpoints WHERE id = ${id}`;
  return row ?? null;
}

/** Changes a PATCH may make; omitted = unchanged. */
export interface EndpointChanges {
  url?: string;
  events?: string[];
  description?: string | null;
  enabled?: boolean;
  /** A move (teams/move.ts): the new owning team, null for personal; undefined keeps it. */
  team_id?: string | null;
}

/**
 * Apply `changes` to endpoint `id` (access decided by the caller). Enabling clears the failure
 * state and the disabled reason (a fresh start); disabling records reason `user`.
 * @returns the updated row, or null when it no longer exists
 */
export async function updateEndpoint(sql: Sql, id: string, changes: EndpointChanges): Promise<EndpointRow | null> {
  const { url, events, description, enabled, team_id } = changes;
  const [row] = await sql<EndpointRow[]>`
    UPDATE webhook_endpoints SET
      url = ${url === undefined ? sql`url` : url},
      events = ${events === undefined ? sql`events` : events},
      description = ${description === undefined ? sql`description` : description},
      team_id = ${team_id === undefined ? sql`team_id` : team_id},
      ${enabled === true ? sql`enabled = true, disabled_reason = NULL, failing_since = CASE WHEN enabled THEN failing_since ELSE NULL END,` : sql``}
      ${enabled === false ? sql`enabled = false, disabled_reason = CASE WHEN enabled THEN 'user' ELSE disabled_reason END,` : sql``}
      updated_at = now()
    WHERE id = ${id}
    RETURNING *`;
  return row ?? null;
}

/** Delete endpoint `id` (access decided by the caller) and its deliveries. @returns true when it existed */
export async function deleteEndpoint(sql: Sql, id: string): Promise<boolean> {
  return sql.begin(async (tx) => {
    const rows = await tx`DELETE FROM webhook_endpoints WHERE id = ${id} RETURNING id`;
    if (rows.length === 0) return false;
    await deleteDestinationDeliveries(tx, WEBHOOK_CHANNEL, id);
    return true;
  });
}

/**
 * Make `secret` the endpoint's signing secret; the current one keeps signing for `overlap_s`
 * (a secret rotated out earlier and still in its overlap is dropped).
 * @returns the updated row, or null when it no longer exists
 */
export async function rotateSecret(sql: Sql, id: string, secret: string, overlap_s: number): Promise<EndpointRow | null> {
  const [row] = await sql<EndpointRow[]>`
    UPDATE webhook_endpoints SET previous_secret = secret, secret = ${secret},
      previous_secret_expires_at = now() + make_interval(secs => ${overlap_s}), updated_at = now()
    WHERE id = ${id}
    RETURNING *`;
  return row ?? null;
}

/** The key of an owner in {@link enabledEndpointsOf}'s answer: `team:<id>` or `user:<id>`. */
export function ownerKey(owner: Owner): string {
  return owner.team_id === null ? `user:${owner.user_id}` : `team:${owner.team_id}`;
}

/**
 * The enabled endpoints of each of `owners` with the event types each is subscribed to, in one
 * statement: keyed by {@link ownerKey}; an owner without any is absent.
 */
export async function enabledEndpointsOf(ex: SqlExecutor, owners: Owner[]): Promise<Map<string, Array<{ id: string; events: string[] }>>> {
  const out = new Map<string, Array<{ id: string; events: string[] }>>();
  const team_ids = [...new Set(owners.flatMap((o) => (o.team_id === null ? [] : [o.team_id])))];
  const user_ids = [...new Set(owners.flatMap((o) => (o.team_id === null ? [o.user_id] : [])))];
  if (team_ids.length === 0 && user_ids.length === 0) return out;
  const rows = await ex<{ id: string; user_id: string; team_id: string | null; events: string[] }[]>`
    SELECT id, user_id, team_id, events FROM webhook_endpoints
    WHERE enabled AND (team_id = ANY(${team_ids}::text[]) OR (team_id IS NULL AND user_id = ANY(${user_ids}::text[])))
    ORDER BY created_at, id`;
  for (const r of rows) {
    const key = ownerKey({ user_id: r.user_id, team_id: r.team_id });
    out.set(key, [...(out.get(key) ?? []), { id: r.id, events: r.events }]);
  }
  return out;
}

/** Record a failed attempt: `failing_since` is set if the endpoint was healthy. */
export async function markFailing(sql: Sql, id: string): Promise<void> {
  await sql`UPDATE webhook_endpoints SET failing_since = now() WHERE id = ${id} AND failing_since IS NULL`;
}

/** Record a successful attempt: the endpoint is healthy again. */
export async function clearFailing(sql: Sql, id: string): Promise<void> {
  await sql`UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ${id} AND failing_since IS NOT NULL`;
}

/**
 * Disable the endpoint when it has been failing for at least `after_s` (reason `failing`), in `tx`.
 * @returns the row when this call disabled it (exactly one caller gets it), else null
 */
export async function disableIfFailing(tx: SqlExecutor, id: string, after_s: number): Promise<EndpointRow | null> {
  const [row] = await tx<EndpointRow[]>`
    UPDATE webhook_endpoints SET enabled = false, disabled_reason = 'failing', updated_at = now()
    WHERE id = ${id} AND enabled AND failing_since <= now() - make_interval(secs => ${after_s})
    RETURNING *`;
  return row ?? null;
}
