import { newId, type StatusPageComponentInput } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';
import type { Sql } from '../db/sql.js';
import { atomically } from '../db/transaction.js';
import type { OwnerScope } from '../teams/authorize.js';
import { ownedBy } from '../teams/owner-scope.db.js';

/** A `status_pages` row (0066_status_pages.sql). */
export interface StatusPageRow {
  id: string;
  user_id: string;
  team_id: string | null;
  slug: string;
  title: string;
  description: string;
  custom_domain: string | null;
  theme: 'system' | 'light' | 'dark';
  logo_url: string | null;
  is_public: boolean;
  password_hash: string | null;
  history_days: number;
  created_at: Date;
  updated_at: Date;
}

/** A `status_page_components` row. */
export interface ComponentRow {
  id: string;
  page_id: string;
  monitor_id: string | null;
  group_id: string | null;
  display_name: string | null;
  section: string;
  position: number;
}

/** The page fields a create or an update writes. */
export type PageFields = Pick<StatusPageRow, 'slug' | 'title' | 'description' | 'custom_domain' | 'theme' | 'logo_url' | 'is_public' | 'password_hash' | 'history_days'>;

/** Which unique address a write collided with. */
export type Taken = 'slug_taken' | 'domain_taken';

function taken(err: unknown): Taken | null {
  const e = err as { code?: string; constraint_name?: string };
  if (e.code !== '23505') return null;
  return e.constraint_name?.includes('custom_domain') ? 'domain_taken' : 'slug_taken';
}

/** The pages in `scope`, oldest first. */
export async function listPages(ex: SqlExecutor, scope: OwnerScope): Promise<StatusPageRow[]> {
  return ex<StatusPageRow[]>`SELECT * FROM status_pages WHERE ${ownedBy(ex, scope)} ORDER BY created_at, id`;
}

/** One page by id, or null. */
export async function getPage(ex: SqlExecutor, id: string): Promise<StatusPageRow | null> {
  const [row] = await ex<StatusPageRow[]>`SELECT * FROM status_pages WHERE id = ${id}`;
  return row ?? null;
}

/** One page by its slug or by its custom domain (`host`, lower case), or null. */
export async function findPublicPage(ex: SqlExecutor, by: { slug: string } | { host: string }): Promise<StatusPageRow | null> {
  const [row] = 'slug' in by
    ? await ex<StatusPageRow[]>`SELECT * FROM status_pages WHERE slug = ${by.slug}`
    : await ex<StatusPageRow[]>`SELECT * FROM status_pages WHERE custom_domain = ${by.host}`;
  return row ?? null;
}

/** The components of `page_ids`, in order; `display_name` falls back to the monitor's or group's name. */
export async function listComponents(ex: SqlExecutor, page_ids: string[]): Promise<Array<ComponentRow & { display_name: string }>> {
  if (page_ids.length === 0) return [];
  return ex<Array<ComponentRow & { display_name: string }>>`
    SELECT c.id, c.page_id, c.monitor_id, c.group_id, coalesce(c.display_name, m.name, g.name) AS display_name, c.section, c.position
    FROM status_page_components c LEFT JOIN monitors m ON m.id = c.monitor_id LEFT JOIN monitor_groups g ON g.id = c.group_id
    WHERE c.page_id = ANY(${page_ids}::text[]) ORDER BY c.page_id, c.position`;
}

// A component keeps its id while it shows the same monitor or group (incidents name components by id).
async function writeComponents(tx: SqlExecutor, page_id: string, components: StatusPageComponentInput[]): Promise<void> {
  const old = await tx<{ id: string; monitor_id: string | null; group_id: string | null }[]>`
    DELETE FROM status_page_components WHERE page_id = ${page_id} RETURNING id, monitor_id, group_id`;
  if (components.length === 0) return;
  const key = (c: { monitor_id?: string | null; group_id?: string | null }) => c.monitor_id ? `m:${c.monitor_id}` : `g:${c.group_id}`;
  const kept = new Map(old.map((c) => [key(c), c.id]));
  const rows = components.map((c, position) => ({
    id: kept.get(key(c)) ?? newId('status_page_component'), page_id, monitor_id: c.monitor_id ?? null, group_id: c.group_id ?? null,
    display_name: c.display_name ?? null, section: c.section, position,
  }));
  await tx`INSERT INTO status_page_components ${tx(rows)}`;
}

/** Insert a page with its components in one transaction. @returns the row, or which address is taken */
export async function insertPage(ex: SqlExecutor, owner: { user_id: string; team_id: string | null }, f: PageFields, components: StatusPageComponentInput[]): Promise<StatusPageRow | Taken> {
  try {
    return await atomically(ex, async (tx) => {
      const [row] = await tx<StatusPageRow[]>`
        INSERT INTO status_pages ${tx({ id: newId('status_page'), user_id: owner.user_id, team_id: owner.team_id, ...f })} RETURNING *`;
      await writeComponents(tx, row!.id, components);
      return row!;
    });
  } catch (err) {
    const t = taken(err);
    if (t) return t;
    throw err;
  }
}

/** Replace a page's fields and, when given, its components. @returns the row, `missing`, or which address is taken */
export async function updatePage(sql: Sql, id: string, f: PageFields, components?: StatusPageComponentInput[]): Promise<StatusPageRow | 'missing' | Taken> {
  try {
    return await sql.begin(async (tx) => {
      const [row] = await tx<StatusPageRow[]>`UPDATE status_pages SET ${tx(f)}, updated_at = now() WHERE id = ${id} RETURNING *`;
      if (!row) return 'missing' as const;
      if (components) await writeComponents(tx, id, components);
      return row;
    });
  } catch (err) {
    const t = taken(err);
    if (t) return t;
    throw err;
  }
}

/** Delete a page (its components go with it). @returns whether it existed */
export async function deletePage(sql: Sql, id: string): Promise<boolean> {
  return sql.begin(async (tx) => {
    await tx`UPDATE incidents SET status_page_ids = array_remove(status_page_ids, ${id}) WHERE ${id} = ANY(status_page_ids)`;
    return (await tx`DELETE FROM status_pages WHERE id = ${id} RETURNING id`).length > 0;
  });
}

/**
 * Which of `monitor_ids` / `group_ids` are owned exactly by `owner` (the page's owner): a
 * component must show the page owner's own monitors and groups.
 */
export async function ownedTargets(ex: SqlExecutor, owner: { user_id: string; team_id: string | null }, monitor_ids: string[], group_ids: string[]): Promise<{ monitors: Set<string>; groups: Set<string> }> {
  const same = (alias: string) => owner.team_id === null
    ? ex`${ex(alias + '.team_id')} IS NULL AND ${ex(alias + '.user_id')} = ${owner.user_id}`
    : ex`${ex(alias + '.team_id')} = ${owner.team_id}`;
  const [monitors, groups] = await Promise.all([
    monitor_ids.length ? ex<{ id: string }[]>`SELECT m.id FROM monitors m WHERE m.id = ANY(${monitor_ids}::text[]) AND ${same('m')}` : [],
    group_ids.length ? ex<{ id: string }[]>`SELECT g.id FROM monitor_groups g WHERE g.id = ANY(${group_ids}::text[]) AND ${same('g')}` : [],
  ]);
  return { monitors: new Set(monitors.map((r) => r.id)), groups: new Set(groups.map((r) => r.id)) };
}
