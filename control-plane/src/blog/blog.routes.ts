import { createRoute, z } from '@hono/zod-openapi';
import { blogFeedQuerySchema, blogPostListQuerySchema, blogPostListSchema, blogPostSchema } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { publicLink } from '../email/links.js';
import { jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { findPost, listPosts, translationsOf } from './blog.db.js';
import { blogAtomFeed } from './feed.js';
import { viewCounterFor } from './view-counter.js';
import { toPost, toSummary } from './view.js';

/** Posts an Atom feed lists. */
const FEED_POSTS = 20;
const slugParam = z.object({ slug: z.string().max(120).openapi({ param: { name: 'slug', in: 'path' }, example: 'anycast-dns-latency' }) });

/**
 * `/v1/blog` (public; docs/api/blog.md): published posts (published_at passed), their detail
 * (each read counted through the batched view counter: view-counter.ts) and an Atom feed.
 * `now` is the clock, for tests.
 */
export function blogRouter(deps: AppDeps, now: () => Date = () => new Date()) {
  const r = createRouter();
  const views = viewCounterFor(deps.sql, deps.config.blog_view_flush_ms, deps.log.child({ module: 'blog.views' }));

  r.openapi(createRoute({
    method: 'get', path: '/posts', tags: ['blog'], summary: 'List published posts, newest first; filter by locale and tag',
    request: { query: blogPostListQuerySchema },
    responses: { 200: jsonOk(blogPostListSchema, '{items[], total, page, page_size, has_more} of summary rows'), 400: jsonError('VALIDATION_FAILED') },
  }), async (c) => {
    const q = c.req.valid('query');
    const { rows, total } = await listPosts(deps.sql, { locale: q.locale, tag: q.tag, published_by: now() }, q.page_size, (q.page - 1) * q.page_size);
    return ok(c, { items: rows.map(toSummary), total, page: q.page, page_size: q.page_size, has_more: q.page * q.page_size < total }, 200);
  });

  r.openapi(createRoute({
    method: 'get', path: '/posts/{slug}', tags: ['blog'], summary: 'Read a published post: Markdown, sanitised HTML, translations; counts one view',
    request: { params: slugParam },
    responses: { 200: jsonOk(blogPostSchema, 'the post'), 404: jsonError('NOT_FOUND: no published post with this slug') },
  }), async (c) => {
    const at = now();
    const post = await findPost(deps.sql, c.req.valid('param').slug, at);
    if (!post) throw new ApiError('NOT_FOUND', 'no published post with this slug');
    views.count(post.slug);
    const translations = post.translation_key ? await translationsOf(deps.sql, post.translation_key, post.slug, at) : [];
    return ok(c, toPost(post, translations, views.unwritten(post.slug)), 200);
  });

  r.openapi(createRoute({
    method: 'get', path: '/feed.atom', tags: ['blog'], summary: 'The newest published posts as an Atom feed (RFC 4287)',
    request: { query: blogFeedQuerySchema },
    responses: { 200: { description: 'Atom 1.0', content: { 'application/atom+xml': { schema: z.string() } } }, 400: jsonError('VALIDATION_FAILED') },
  }), async (c) => {
    const { locale } = c.req.valid('query');
    const at = now();
    const { rows } = await listPosts(deps.sql, { locale, published_by: at }, FEED_POSTS, 0);
    const xml = blogAtomFeed(rows, {
      self_url: publicLink(deps.config, '/v1/blog/feed.atom', locale ? { locale } : {}),
      title: locale === 'cn' ? 'Vantage 博客' : 'Vantage blog',
      post_url: (slug) => publicLink(deps.config, `/v1/blog/posts/${slug}`),
      language: locale === 'cn' ? 'zh-CN' : locale === 'en' ? 'en' : null,
      now: at,
    });
    return c.body(xml, 200, { 'content-type': 'application/atom+xml; charset=utf-8', 'cache-control': 'public, max-age=300' }) as never;
  });

  return r;
}
