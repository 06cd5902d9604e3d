import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { jsonError } from '../http/openapi-responses.js';
import { requireAuth } from '../middleware/auth.js';
import { authorize, type Owner } from '../teams/authorize.js';
import { secretBoxOf } from '../secrets/secret-box.js';

/** What the certificate routers share: scopes, the int64 id parameter, access checks. */
export const read = [requireAuth({ scope: 'read' })];
export const write = [requireAuth({ scope: 'write' })];
export const TAGS = ['certificates'];
export const idParam = z.object({ id: z.string().max(32).openapi({ param: { name: 'id', in: 'path' }, example: '42' }) });
export const NOT_FOUND = { 404: jsonError('NOT_FOUND (no such resource of yours)') };
export const CONFLICT = { 409: jsonError('CONFLICT (the resource is not in a state that allows it; details.status names its state)') };
export const listQuery = z.object({
  team_id: z.string().max(64).optional(),
  page: z.coerce.number().int().min(1).default(1),
  page_size: z.coerce.number().int().min(1).max(200).default(20),
});

/** An int64 id of the path (decimal, positive), or null (then the resource is not found). */
export function parseId(text: string): number | null {
  return /^[1-9][0-9]{0,14}$/.test(text) ? Number(text) : null;
}

/**
 * Load a resource by path id and decide the access (teams/authorize.ts): another owner's id is
 * 404 NOT_FOUND like an unknown one. @returns the row
 */
export async function owned<T extends Owner>(c: Context<AppEnv>, deps: AppDeps, id: string, load: (id: number) => Promise<T | null>, access: 'read' | 'write', what: string): Promise<T> {
  const n = parseId(id);
  const row = n === null ? null : await load(n);
  await authorize(c, deps, row, access, 'NOT_FOUND', what);
  return row!;
}

/** The secret box of the app's configuration. */
export const boxOf = (deps: AppDeps) => secretBoxOf(deps.config);
