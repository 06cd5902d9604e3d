import { z } from 'zod';

/** Status pages (docs/api/status-pages.md): the public page cache and the custom domain's DNS check. */
export const statusPagesConfigSchema = z.object({
  /**
   * How long a rendered public status page (HTML, JSON, feed) is served from memory, seconds
   * (VANTAGE_STATUS_PAGE_CACHE_TTL_S). A change through the API drops it at once on the instance
   * that made it; other instances show it after at most this long. 0 = no cache.
   */
  status_page_cache_ttl_s: z.coerce.number().int().min(0).max(3600).default(30),
  /**
   * DNS servers the custom-domain check asks, `ip` or `ip:port`, comma-separated
   * (VANTAGE_STATUS_PAGE_DNS_SERVERS). Empty = the system's resolvers.
   */
  status_page_dns_servers: z.array(z.string().min(1).max(64)).default([]),
});
