import type { BlogPost, BlogPostSummary } from '@vantage/shared-protocol';
import type { BlogPostRow } from './blog.db.js';
import { renderPostHtml } from './markdown.js';

/** A summary row (docs/api/blog.md): `cover_url` and `translation_key` omitted when absent. */
export function toSummary(p: BlogPostRow): BlogPostSummary {
  return {
    slug: p.slug, title: p.title, summary: p.summary, author: p.author, tags: p.tags, locale: p.locale,
    published_at: p.published_at?.toISOString() ?? null,
    ...(p.cover_url ? { cover_url: p.cover_url } : {}), ...(p.translation_key ? { translation_key: p.translation_key } : {}),
  };
}

/** A post read alone: `unwritten_views` (counted, not yet flushed) are added to the stored count. */
export function toPost(p: BlogPostRow, translations: BlogPost['translations'], unwritten_views: number): BlogPost {
  return {
    ...toSummary(p), content_md: p.content_md, content_html: renderPostHtml(p.content_md),
    created_at: p.created_at.toISOString(), updated_at: p.updated_at.toISOString(), view_count: Number(p.view_count) + unwritten_views, translations,
  };
}
