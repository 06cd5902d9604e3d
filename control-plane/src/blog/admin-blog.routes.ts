import { createRoute, z } from '@hono/zod-openapi';
import {
  blogPostListQuerySchema, blogPostListSchema, blogPostSchema, createBlogPostRequestSchema, updateBlogPostRequestSchema,
} from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { auditAdmin, requireAdmin } from '../accounts/admin.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { deletePost, findPost, insertPost, listPosts, updatePost, type BlogConflict, type BlogPostRow } from './blog.db.js';
import { toPost, toSummary } from './view.js';

const ADMIN_ERRORS = { ...AUTH_ERRORS, 403: jsonError('FORBIDDEN: not an administrator of this deployment, or (changes) a credential without the write scope') };
const slugParam = z.object({ slug: z.string().max(120).openapi({ param: { name: 'slug', in: 'path' }, example: 'anycast-dns-latency' }) });
const NOT_FOUND = jsonError('NOT_FOUND: no post with this slug');
const CONFLICT = jsonError('CONFLICT: the slug is taken, or the translation group already has a post in this locale');

/** The 409 of a broken unique rule. */
function conflict(kind: BlogConflict): ApiError {
  return kind === 'slug_taken'
    ? new ApiError('CONFLICT', 'a post with this slug exists', { field: 'slug' })
    : new ApiError('CONFLICT', 'this translation group already has a post in this locale', { field: 'translation_key' });
}

const isConflict = (v: BlogPostRow | BlogConflict | null): v is BlogConflict => typeof v === 'string';

/**
 * `/v1/admin/blog/posts`: the deployment's administrators write the blog (docs/api/blog.md):
 * create, list (drafts too), read, change, delete. Audit-logged: `blog_post.create`,
 * `blog_post.update`, `blog_post.delete`.
 */
export function adminBlogRouter(deps: AppDeps) {
  const r = createRouter();
  const guard = [requireAdmin(deps)];

  r.openapi(createRoute({
    tags: ['admin'], security: BEARER, middleware: guard, method: 'get', path: '/', summary: 'List every post, drafts first, then newest',
    request: { query: blogPostListQuerySchema },
    responses: { 200: jsonOk(blogPostListSchema, '{items[], total, page, page_size, has_more}'), 400: jsonError('VALIDATION_FAILED'), ...ADMIN_ERRORS },
  }), async (c) => {
    const q = c.req.valid('query');
    const { rows, total } = await listPosts(deps.sql, { locale: q.locale, tag: q.tag }, q.page_size, (q.page - 1) * q.page_size);
    return ok(c, { items: rows.map(toSummary), total, page: q.page, page_size: q.page_size, has_more: q.page * q.page_size < total }, 200);
  });

  r.openapi(createRoute({
    tags: ['admin'], security: BEARER, middleware: guard, method: 'post', path: '/', summary: 'Write a post (a draft unless published_at is given)',
    request: { body: jsonBody(createBlogPostRequestSchema) },
    responses: { 201: jsonOk(blogPostSchema, 'the post'), 400: jsonError('VALIDATION_FAILED'), 409: CONFLICT, ...ADMIN_ERRORS },
  }), async (c) => {
    const b = c.req.valid('json');
    const row = await insertPost(deps.sql, {
      ...b, cover_url: b.cover_url ?? null, translation_key: b.translation_key ?? null, published_at: b.published_at ? new Date(b.published_at) : null,
    });
    if (isConflict(row)) throw conflict(row);
    await auditAdmin(c, deps, 'blog_post.create', row.slug, { locale: row.locale, published_at: row.published_at?.toISOString() ?? null });
    return ok(c, toPost(row, [], 0), 201);
  });

  r.openapi(createRoute({
    tags: ['admin'], security: BEARER, middleware: guard, method: 'get', path: '/{slug}', summary: 'Read a post, draft or not (counts no view)',
    request: { params: slugParam }, responses: { 200: jsonOk(blogPostSchema, 'the post'), 404: NOT_FOUND, ...ADMIN_ERRORS },
  }), async (c) => {
    const row = await findPost(deps.sql, c.req.valid('param').slug);
    if (!row) throw new ApiError('NOT_FOUND', 'no post with this slug');
    return ok(c, toPost(row, [], 0), 200);
  });

  r.openapi(createRoute({
    tags: ['admin'], security: BEARER, middleware: guard, method: 'patch', path: '/{slug}', summary: 'Change a post; null clears cover_url, translation_key or published_at (back to draft)',
    request: { params: slugParam, body: jsonBody(updateBlogPostRequestSchema) },
    responses: { 200: jsonOk(blogPostSchema, 'the post as changed'), 400: jsonError('VALIDATION_FAILED'), 404: NOT_FOUND, 409: CONFLICT, ...ADMIN_ERRORS },
  }), async (c) => {
    const { slug } = c.req.valid('param');
    const { published_at, ...rest } = c.req.valid('json');
    const row = await updatePost(deps.sql, slug, { ...rest, ...(published_at !== undefined ? { published_at: published_at === null ? null : new Date(published_at) } : {}) });
    if (row === null) throw new ApiError('NOT_FOUND', 'no post with this slug');
    if (isConflict(row)) throw conflict(row);
    await auditAdmin(c, deps, 'blog_post.update', slug, { fields: Object.keys(c.req.valid('json')) });
    return ok(c, toPost(row, [], 0), 200);
  });

  r.openapi(createRoute({
    tags: ['admin'], security: BEARER, middleware: guard, method: 'delete', path: '/{slug}', summary: 'Delete a post',
    request: { params: slugParam }, responses: { 200: jsonOk(z.null(), 'deleted'), 404: NOT_FOUND, ...ADMIN_ERRORS },
  }), async (c) => {
    const { slug } = c.req.valid('param');
    if (!(await deletePost(deps.sql, slug))) throw new ApiError('NOT_FOUND', 'no post with this slug');
    await auditAdmin(c, deps, 'blog_post.delete', slug);
    return ok(c, null, 200);
  });

  return r;
}
