import type { SqlExecutor } from '../contracts.js';

/* Blog posts (migration 0085). Public reads take `now`: a post is public once published_at <= now. */

/** A stored post (`view_count` is bigint, read as text). */
export interface BlogPostRow {
  slug: string;
  locale: 'cn' | 'en';
  title: string;
  summary: string;
  author: string;
  tags: string[];
  cover_url: string | null;
  translation_key: string | null;
  content_md: string;
  published_at: Date | null;
  view_count: string;
  created_at: Date;
  updated_at: Date;
}

/** The columns a post is written with. */
export type BlogPostFields = Omit<BlogPostRow, 'view_count' | 'created_at' | 'updated_at'>;

/** Which unique rule a write broke: the slug, or the one-post-per-locale rule of a translation group. */
export type BlogConflict = 'slug_taken' | 'translation_taken';

function conflictOf(err: unknown): BlogConflict | null {
  const e = err as { code?: string; constraint_name?: string };
  if (e.code !== '23505') return null;
  return e.constraint_name === 'blog_posts_translation_locale' ? 'translation_taken' : 'slug_taken';
}

/** Insert a post. @returns the row, or the unique rule it broke */
export async function insertPost(sql: SqlExecutor, p: BlogPostFields): Promise<BlogPostRow | BlogConflict> {
  try {
    const [row] = await sql<BlogPostRow[]>`INSERT INTO blog_posts ${sql(p as never)} RETURNING *`;
    return row!;
  } catch (err) {
    const conflict = conflictOf(err);
    if (conflict) return conflict;
    throw err;
  }
}

/** Change post `slug`'s given fields. @returns the row, null when there is no such post, or the unique rule broken */
export async function updatePost(sql: SqlExecutor, slug: string, patch: Partial<Omit<BlogPostFields, 'slug'>>): Promise<BlogPostRow | BlogConflict | null> {
  const keys = Object.keys(patch);
  try {
    const rows = keys.length === 0
      ? await sql<BlogPostRow[]>`SELECT * FROM blog_posts WHERE slug = ${slug}`
      : await sql<BlogPostRow[]>`UPDATE blog_posts SET ${sql(patch as never, keys as never)}, updated_at = now() WHERE slug = ${slug} RETURNING *`;
    return rows[0] ?? null;
  } catch (err) {
    const conflict = conflictOf(err);
    if (conflict) return conflict;
    throw err;
  }
}

/** Delete post `slug`. @returns false when there was none */
export async function deletePost(sql: SqlExecutor, slug: string): Promise<boolean> {
  return (await sql`DELETE FROM blog_posts WHERE slug = ${slug} RETURNING slug`).length > 0;
}

/** Post `slug`; with `published_by`, only when published at or before it. */
export async function findPost(sql: SqlExecutor, slug: string, published_by?: Date): Promise<BlogPostRow | null> {
  const rows = await sql<BlogPostRow[]>`SELECT * FROM blog_posts WHERE slug = ${slug}
    ${published_by ? sql`AND published_at <= ${published_by}` : sql``}`;
  return rows[0] ?? null;
}

/** List filter: locale, tag, and (public reads) published at or before `published_by`. */
export interface BlogFilter {
  locale?: 'cn' | 'en' | undefined;
  tag?: string | undefined;
  published_by?: Date;
}

/** Posts matching `f`, newest first (drafts, in admin lists, first), one page. */
export async function listPosts(sql: SqlExecutor, f: BlogFilter, limit: number, offset: number): Promise<{ rows: BlogPostRow[]; total: number }> {
  const where = sql`WHERE true
    ${f.locale ? sql`AND locale = ${f.locale}` : sql``}
    ${f.tag ? sql`AND tags @> ARRAY[${f.tag}]::text[]` : sql``}
    ${f.published_by ? sql`AND published_at <= ${f.published_by}` : sql``}`;
  const [rows, [count]] = await Promise.all([
    sql<BlogPostRow[]>`SELECT * FROM blog_posts ${where} ORDER BY published_at DESC NULLS FIRST, slug LIMIT ${limit} OFFSET ${offset}`,
    sql<{ n: number }[]>`SELECT count(*)::int AS n FROM blog_posts ${where}`,
  ]);
  return { rows, total: count!.n };
}

/** The other posts of translation group `key` published by `published_by`, by locale. */
export async function translationsOf(sql: SqlExecutor, key: string, slug: string, published_by: Date): Promise<Array<Pick<BlogPostRow, 'slug' | 'locale' | 'title'>>> {
  return sql<Array<Pick<BlogPostRow, 'slug' | 'locale' | 'title'>>>`
    SELECT slug, locale, title FROM blog_posts WHERE translation_key = ${key} AND slug <> ${slug} AND published_at <= ${published_by} ORDER BY locale`;
}

/** Add `views` (slug → reads) to the posts' view_count in one statement (posts deleted meanwhile are skipped). */
export async function addViews(sql: SqlExecutor, views: Map<string, number>): Promise<void> {
  const slugs = [...views.keys()];
  const counts = slugs.map((s) => views.get(s)!);
  await sql`UPDATE blog_posts p SET view_count = p.view_count + v.n
    FROM unnest(${slugs}::text[], ${counts}::bigint[]) AS v(slug, n) WHERE p.slug = v.slug`;
}
