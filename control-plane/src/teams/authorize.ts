import type { Context } from 'hono';
import type { ErrorCode } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { rolesOfUser } from './memberships.db.js';
import { leastRoleFor, roleGrants, type Access, type TeamRole } from './roles.js';

/*
 * The one authorization function (docs/api/teams.md "Who may do what"). Every route that reads or
 * changes an owned resource asks here: a personal resource is its creator's alone; a team's
 * resource is its members', each by role. What the caller may not even read answers 404 with the
 * resource's own code (another account's or another team's id looks exactly like an unknown one);
 * what it may read but not change answers 403 FORBIDDEN naming the role it would need. Key scopes
 * are checked before this, by requireAuth.
 */

/** Who owns a resource: its creator, and the team it belongs to (null: personal). */
export interface Owner {
  user_id: string;
  team_id: string | null;
}

/**
 * The caller as authorization sees it: its account, its role in each of its teams (read from the
 * database once per request), and `team_only`, the one team a workspace token acts for (null for
 * sessions, account keys and PATs).
 */
export interface Actor {
  user_id: string;
  roles: ReadonlyMap<string, TeamRole>;
  team_only: string | null;
}

/**
 * Which owners' resources a list shows: `user_id`'s personal ones (null for a workspace token,
 * which sees only its team) and those of `team_ids`. Turned into SQL by owner-scope.db.ts ownedBy.
 */
export interface OwnerScope {
  user_id: string | null;
  team_ids: string[];
}

const actors = new WeakMap<Request, Actor>();

/**
 * The caller of `c` as an Actor (memberships read once per request, with the credential where it
 * could be, and kept with it).
 * @throws ApiError AUTH_REQUIRED when the request is anonymous (routes check requireAuth first)
 */
export async function actorOf(c: Context<AppEnv>, deps: Pick<AppDeps, 'sql'>): Promise<Actor> {
  const known = actors.get(c.req.raw);
  if (known) return known;
  const principal = c.get('principal');
  if (!principal) throw new ApiError('AUTH_REQUIRED', 'authentication required: send Authorization: Bearer <token>');
  const all = principal.standing?.team_roles ?? await rolesOfUser(deps.sql, principal.user_id);
  const team_only = principal.team_id ?? null;
  const roles = team_only === null ? all : new Map([...all].filter(([team]) => team === team_only));
  const actor: Actor = { user_id: principal.user_id, roles, team_only };
  actors.set(c.req.raw, actor);
  return actor;
}

/** Whether `actor` may do `access` to a resource of `owner` (docs/api/teams.md "Roles"). */
export function allows(actor: Actor, owner: Owner, access: Access): boolean {
  if (owner.team_id === null) return actor.team_only === null && owner.user_id === actor.user_id;
  if (actor.team_only !== null && owner.team_id !== actor.team_only) return false;
  const role = actor.roles.get(owner.team_id);
  return role !== undefined && roleGrants(role, access);
}

/**
 * Decide one access to one resource, the rule of every route (docs/api/teams.md).
 *
 * @param owner     the resource's owner as stored, or null/undefined when there is no such resource
 * @param access    what the operation needs (`read` for GET, `write` for every change)
 * @param not_found the resource's not-found code (MONITOR_NOT_FOUND, ALERT_CHANNEL_NOT_FOUND, …)
 * @param what      the resource in words for the message (`monitor`, `alert channel`)
 * @returns the caller as an Actor
 * @throws ApiError `not_found` (404) when the resource does not exist or the caller may not read it;
 *   FORBIDDEN (403, `details: { team_id, role, required_role }`) when it may read but not `access`
 */
export async function authorize(
  c: Context<AppEnv>, deps: Pick<AppDeps, 'sql'>, owner: Owner | null | undefined, access: Access, not_found: ErrorCode, what: string,
): Promise<Actor> {
  const actor = await actorOf(c, deps);
  decideAccess(actor, owner, access, not_found, what);
  return actor;
}

/**
 * The rule of {@link authorize} for an actor already known (the MCP entry point's token owner):
 * same arguments and errors, no request context.
 * @throws ApiError `not_found` (404) or FORBIDDEN (403) as {@link authorize}
 */
export function decideAccess(actor: Actor, owner: Owner | null | undefined, access: Access, not_found: ErrorCode, what: string): asserts owner is Owner {
  if (!owner || !allows(actor, owner, 'read')) throw new ApiError(not_found, `${what} not found`);
  if (!allows(actor, owner, access)) {
    const role = actor.roles.get(owner.team_id!) ?? null;
    throw new ApiError('FORBIDDEN', `your role in this team (${role}) cannot ${access === 'write' ? 'change' : access} this ${what}: it needs ${leastRoleFor(access)} or above`,
      { team_id: owner.team_id, role, required_role: leastRoleFor(access) });
  }
}

/**
 * The owners whose resources the caller may `access` (default read): for list queries, with
 * owner-scope.db.ts ownedBy. Narrowed to `team_id` when given (`?team_id=` filters): a team the
 * caller is not in yields an empty scope, never an error, as for any filter.
 */
export async function ownerScope(c: Context<AppEnv>, deps: Pick<AppDeps, 'sql'>, access: Access = 'read', team_id?: string | null): Promise<OwnerScope> {
  return scopeOfActor(await actorOf(c, deps), access, team_id);
}

/** The rule of {@link ownerScope} for an actor already known (the MCP entry point's token owner). */
export function scopeOfActor(actor: Actor, access: Access = 'read', team_id?: string | null): OwnerScope {
  const teams = [...actor.roles].filter(([, role]) => roleGrants(role, access)).map(([team]) => team);
  if (team_id === undefined) return { user_id: actor.team_only === null ? actor.user_id : null, team_ids: teams };
  if (team_id === null) return { user_id: actor.team_only === null ? actor.user_id : null, team_ids: [] };
  return { user_id: null, team_ids: teams.filter((t) => t === team_id) };
}

/**
 * The owner of a resource being created: the team `team_id` names (the caller needs `write` in
 * it), else the workspace token's team, else the caller alone.
 * @throws ApiError TEAM_NOT_FOUND (404) when the caller is not a member of `team_id`, it does not
 *   exist, or a workspace token names another team than its own; FORBIDDEN (403) when the
 *   caller's role there cannot write (viewer)
 */
export async function ownerForNew(c: Context<AppEnv>, deps: Pick<AppDeps, 'sql'>, team_id?: string | null): Promise<Owner> {
  return ownerForNewOfActor(await actorOf(c, deps), team_id);
}

/** The rule of {@link ownerForNew} for an actor already known (the MCP entry point's token owner). */
export function ownerForNewOfActor(actor: Actor, team_id?: string | null): Owner {
  const team = team_id ?? actor.team_only;
  if (team === null) return { user_id: actor.user_id, team_id: null };
  decideAccess(actor, { user_id: actor.user_id, team_id: team }, 'write', 'TEAM_NOT_FOUND', 'team');
  return { user_id: actor.user_id, team_id: team };
}
