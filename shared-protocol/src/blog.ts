import { z } from 'zod';
import { pageQuerySchema } from './envelope.js';
import { textString } from './parse.js';

/** The blog (docs/api/blog.md): posts in Markdown, one locale each, translations linked by `translation_key`. */

/** Post locales (docs/api/blog.md). */
export const BLOG_LOCALES = ['cn', 'en'] as const;
/** Longest Markdown body, characters (a body travels in one request of at most 32 KB). */
export const BLOG_CONTENT_MAX = 30_000;

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const KEY = /^[a-z0-9]+(?:[-_][a-z0-9]+)*$/;

/** A post's address in `/v1/blog/posts/{slug}`: lower-case letters, digits, single hyphens, 1-120. */
export const blogSlugSchema = z.string().min(1).max(120).regex(SLUG, 'lower-case letters, digits and single inner hyphens');

/**
 * A summary row of the list (docs/api/blog.md): `cover_url` and `translation_key` are omitted
 * when absent; `published_at` null for a draft (only administrators see drafts).
 * @example { "slug": "anycast-dns-latency", "title": "Anycast DNS latency, measured", "summary": "What 40 nodes saw in October.", "author": "Vantage team", "tags": ["dns", "latency"], "locale": "en", "published_at": "2026-11-02T08:00:00.000Z", "translation_key": "anycast-dns-2026" }
 */
export const blogPostSummarySchema = z.object({
  slug: z.string(),
  title: z.string(),
  summary: z.string(),
  author: z.string(),
  tags: z.array(z.string()),
  locale: z.enum(BLOG_LOCALES),
  published_at: z.iso.datetime().nullable(),
  cover_url: z.string().optional(),
  translation_key: z.string().optional(),
});
export type BlogPostSummary = z.infer<typeof blogPostSummarySchema>;

/**
 * A post read alone: the summary plus `content_md` (Markdown), `content_html` (ours: the Markdown
 * rendered to sanitised HTML), `created_at`, `updated_at`, `view_count` (reads so far; the last
 * few seconds' reads of other instances may not be in it yet), and `translations[]` (ours: the
 * other published posts sharing its `translation_key`).
 */
export const blogPostSchema = blogPostSummarySchema.extend({
  content_md: z.string(),
  content_html: z.string(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
  view_count: z.number().int(),
  translations: z.array(z.object({ slug: z.string(), locale: z.enum(BLOG_LOCALES), title: z.string() })),
});
export type BlogPost = z.infer<typeof blogPostSchema>;

/** `{items[], total, page, page_size, has_more}` of summary rows, newest first. */
export const blogPostListSchema = z.object({
  items: z.array(blogPostSummarySchema), total: z.number().int(), page: z.number().int(), page_size: z.number().int(), has_more: z.boolean(),
});

/** List query: paging, `locale`, `tag` (posts carrying it). */
export const blogPostListQuerySchema = pageQuerySchema.extend({
  locale: z.enum(BLOG_LOCALES).optional(),
  tag: z.string().trim().toLowerCase().min(1).max(32).optional(),
});

/** The feed's query: `locale` (default every locale). */
export const blogFeedQuerySchema = z.object({ locale: z.enum(BLOG_LOCALES).optional() });

const tagsSchema = z.array(z.string().trim().toLowerCase().min(1).max(32).regex(/^[\p{L}\p{N}][\p{L}\p{N} _-]*$/u, 'letters, digits, spaces, hyphens, underscores')).max(10);

/**
 * `POST /v1/admin/blog/posts`. `published_at`: null or absent = a draft; a time = public from
 * then on. `translation_key` links translations (one post per locale in a group).
 */
export const createBlogPostRequestSchema = z.strictObject({
  slug: blogSlugSchema,
  locale: z.enum(BLOG_LOCALES),
  title: textString().trim().min(1).max(200),
  summary: textString().trim().max(500).default(''),
  author: textString().trim().min(1).max(100),
  tags: tagsSchema.default([]),
  content_md: textString().max(BLOG_CONTENT_MAX).default(''),
  cover_url: z.url({ protocol: /^https?$/ }).max(2048).nullable().optional(),
  translation_key: z.string().min(1).max(64).regex(KEY, 'lower-case letters, digits, single inner hyphens or underscores').nullable().optional(),
  published_at: z.iso.datetime({ offset: true }).nullable().optional(),
});
export type CreateBlogPostRequest = z.infer<typeof createBlogPostRequestSchema>;

/** `PATCH /v1/admin/blog/posts/{slug}`: any field but the slug; null clears `cover_url`, `translation_key`, `published_at`. */
export const updateBlogPostRequestSchema = z.strictObject({
  locale: z.enum(BLOG_LOCALES).optional(),
  title: textString().trim().min(1).max(200).optional(),
  summary: textString().trim().max(500).optional(),
  author: textString().trim().min(1).max(100).optional(),
  tags: tagsSchema.optional(),
  content_md: textString().max(BLOG_CONTENT_MAX).optional(),
  cover_url: z.url({ protocol: /^https?$/ }).max(2048).nullable().optional(),
  translation_key: z.string().min(1).max(64).regex(KEY, 'lower-case letters, digits, single inner hyphens or underscores').nullable().optional(),
  published_at: z.iso.datetime({ offset: true }).nullable().optional(),
});
export type UpdateBlogPostRequest = z.infer<typeof updateBlogPostRequestSchema>;
