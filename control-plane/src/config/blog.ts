import { z } from 'zod';

/** The blog (docs/api/blog.md): how read counts reach the database. */
export const blogConfigSchema = z.object({
  /**
   * How often the views counted in memory are written to the posts' `view_count`, ms
   * (VANTAGE_BLOG_VIEW_FLUSH_MS): one statement per flush whatever the number of reads, so a
   * popular post is not one row written per view. Views counted since the last flush are lost if
   * the process dies without stopping; a stopping process writes them.
   */
  blog_view_flush_ms: z.coerce.number().int().min(100).max(600_000).default(5000),
});
