import type { PublicStatusPage } from '@vantage/shared-protocol';
import { publicBaseUrl } from '../config/public-url.js';
import { PrecompressedBody } from '../http/precompressed.js';
import type { AppDeps } from '../deps.js';
import { atomFeed } from './feed.js';
import { pageHtml } from './page-html.js';
import { buildPublicView } from './public-view.js';
import { findPublicPage, type StatusPageRow } from './status-pages.db.js';

/** A public page rendered once and served from memory until it expires. */
export interface CachedPage {
  page: StatusPageRow;
  view: PublicStatusPage;
  /** The JSON envelope's `data` as text. */
  json: string;
  /** The HTML page and the Atom feed, encoded once (UTF-8, then br/gzip on first use) with their ETags. */
  html: PrecompressedBody;
  atom: PrecompressedBody;
  /** When it was built (the feed's and the ETag's clock), ms. */
  built_ms: number;
}

type Key = `slug:${string}` | `host:${string}`;
interface Entry { expires_ms: number; value: Promise<CachedPage | null> }

/**
 * The public page cache (docs/api/status-pages.md "Caching"): a page read costs a map look-up
 * while its entry is fresh (`status_page_cache_ttl_s`); concurrent misses share one build. Unknown
 * slugs and hosts are remembered as misses for the same time, so probing addresses costs no query
 * either. API changes call forget/forgetIds on this instance; other instances catch up on expiry.
 */
export class PageCache {
  private readonly entries = new Map<Key, Entry>();

  constructor(private readonly deps: Pick<AppDeps, 'sql' | 'config'>, private readonly now: () => number = Date.now) {}

  /** The rendered page at `/status/{slug}`, or null when there is none. */
  bySlug(slug: string): Promise<CachedPage | null> {
    return this.get(`slug:${slug}`, () => findPublicPage(this.deps.sql, { slug }));
  }

  /** The rendered page whose custom domain is `host` (lower case, no port), or null. */
  byHost(host: string): Promise<CachedPage | null> {
    return this.get(`host:${host}`, () => findPublicPage(this.deps.sql, { host }));
  }

  /** Drop a page's entries (after it changed or was deleted), by its slug and custom domain. */
  forget(page: Pick<StatusPageRow, 'slug' | 'custom_domain'>): void {
    this.entries.delete(`slug:${page.slug}`);
    if (page.custom_domain) this.entries.delete(`host:${page.custom_domain}`);
  }

  /** Drop the entries of the pages with ids `page_ids` (after one of their incidents changed). */
  forgetIds(page_ids: string[]): void {
    if (page_ids.length === 0) return;
    const ids = new Set(page_ids);
    for (const [key, entry] of this.entries) {
      void entry.value.then((v) => { if (v && ids.has(v.page.id) && this.entries.get(key) === entry) this.entries.delete(key); });
    }
  }

  private get(key: Key, find: () => Promise<StatusPageRow | null>): Promise<CachedPage | null> {
    const now = this.now();
    const ttl_ms = this.deps.config.status_page_cache_ttl_s * 1000;
    const hit = ttl_ms > 0 ? this.entries.get(key) : undefined;
    if (hit && hit.expires_ms > now) return hit.value;
    const value = this.build(find);
    if (ttl_ms > 0) {
      const entry = { expires_ms: now + ttl_ms, value };
      this.entries.set(key, entry);
      // A failed build is not kept: the next read tries again.
      value.catch(() => { if (this.entries.get(key) === entry) this.entries.delete(key); });
    }
    return value;
  }

  private async build(find: () => Promise<StatusPageRow | null>): Promise<CachedPage | null> {
    const page = await find();
    if (!page) return null;
    const built_ms = this.now();
    const view = await buildPublicView(this.deps.sql, page, new Date(built_ms));
    const base = publicBaseUrl(this.deps.config);
    return { page, view, json: JSON.stringify(view), html: new PrecompressedBody(pageHtml(view)), atom: new PrecompressedBody(atomFeed(view, `${base}/status/${page.slug}`)), built_ms };
  }
}

const caches = new WeakMap<object, PageCache>();

/** The app's one page cache (kept per database client, so every router of one app shares it). */
export function pageCacheOf(deps: Pick<AppDeps, 'sql' | 'config'>): PageCache {
  let cache = caches.get(deps.sql);
  if (!cache) caches.set(deps.sql, (cache = new PageCache(deps)));
  return cache;
}
