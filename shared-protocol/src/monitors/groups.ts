import { z } from 'zod';
import { idSchema } from '../ids.js';
import { monitorTeamIdInput, monitorTeamIdOutput, monitorTeamIdQuery } from './owner.js';
import { monitorNameSchema } from './requests.js';

/*
 * Monitor groups ( "Monitor group", 2.2 "plain arrays in data"): named, ordered buckets
 * of one owner's monitors (a user's personal ones, or a team's). A name is unique per owner
 * (import matches groups by it); a monitor and its group have the same owner.
 */

const sortOrderSchema = z.number().int().min(-1_000_000).max(1_000_000);

/**
 * `POST /v1/monitor-groups`: `name` (required, 1-200 characters, unique per owner),
 * `sort_order` (integer, default 0; lists are ordered by it, then by name), `team_id` (the team
 * that owns it; absent or null: personal).
 * @example { "name": "Production", "sort_order": 10 }
 */
export const monitorGroupCreateSchema = z.strictObject({
  name: monitorNameSchema,
  sort_order: sortOrderSchema.default(0),
  team_id: monitorTeamIdInput,
});
export type MonitorGroupCreate = z.infer<typeof monitorGroupCreateSchema>;

/**
 * `PATCH /v1/monitor-groups/{id}`: `name` and/or `sort_order`; omitted = unchanged.
 * @example { "sort_order": 20 }
 */
export const monitorGroupPatchSchema = z.strictObject({
  name: monitorNameSchema.optional(),
  sort_order: sortOrderSchema.optional(),
});
export type MonitorGroupPatch = z.infer<typeof monitorGroupPatchSchema>;

/** A monitor group with the number of monitors in it. */
export const monitorGroupSchema = z.object({
  id: idSchema('monitor_group'),
  user_id: z.string(),
  team_id: monitorTeamIdOutput,
  name: z.string(),
  sort_order: z.number().int(),
  monitor_count: z.number().int().min(0),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type MonitorGroup = z.infer<typeof monitorGroupSchema>;

/** `GET /v1/monitor-groups`: a plain array (docs/api/conventions.md), ordered by sort_order, then name. */
export const monitorGroupListSchema = z.array(monitorGroupSchema);

/** `GET /v1/monitor-groups` query: `team_id` (only that team's groups; absent: every group you can read). */
export const monitorGroupListQuerySchema = z.object({ team_id: monitorTeamIdQuery });
