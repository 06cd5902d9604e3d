import {
  BROWSER_RESOURCES_MAX, BROWSER_URL_MAX_CHARS, type BrowserResource, type BrowserWaterfall,
} from '@vantage/shared-protocol';
import type { Page, Request } from 'playwright-core';

type ResourceType = BrowserResource['type'];

const TYPES: Record<string, ResourceType> = {
  document: 'document', script: 'script', stylesheet: 'stylesheet', image: 'image', font: 'font', xhr: 'xhr', fetch: 'xhr',
};

/** The metadata's resource type for Playwright's (Chromium's) `resourceType()`. */
export function resourceType(playwrightType: string): ResourceType {
  return TYPES[playwrightType] ?? 'other';
}

const round = (ms: number) => Math.max(0, Math.round(ms * 10) / 10);
const cutUrl = (url: string) => (url.length > BROWSER_URL_MAX_CHARS ? `${url.slice(0, BROWSER_URL_MAX_CHARS)}…` : url);

/** `start_ms` holds the request's start as epoch ms until {@link ResourceCollector.resources} makes it relative. */
interface Pending { settled: Promise<BrowserResource | null>; ended: boolean }

/**
 * Records every request of `page` that ends (finished or failed) while the check runs, as
 * metadata resources: start and duration from the request's own timing (start in ms from the
 * navigation start), the HTTP status (0 without a response), the bytes transferred
 * (response headers + body). Requests still open when the check ends are left out.
 */
export class ResourceCollector {
  private readonly items: Pending[] = [];

  constructor(page: Page) {
    page.on('request', (request) => {
      if (this.items.length >= BROWSER_RESOURCES_MAX) return;
      let done!: (r: BrowserResource | null) => void;
      const settled = new Promise<BrowserResource | null>((resolve) => { done = resolve; });
      const item: Pending = { settled, ended: false };
      this.items.push(item);
      const started = Date.now();
      const finish = async (ok: boolean) => {
        item.ended = true;
        try {
          const timing = request.timing();
          const start = timing.startTime > 0 ? timing.startTime : started;
          const end_ms = timing.responseEnd >= 0 ? timing.responseEnd : Date.now() - start;
          const response = ok ? await request.response() : null;
          const status = response?.status() ?? 0;
          let size_bytes = 0;
          if (response) {
            const sizes = await request.sizes().catch(() => null);
            if (sizes) size_bytes = Math.max(0, sizes.responseHeadersSize) + Math.max(0, sizes.responseBodySize);
          }
          done({
            url: cutUrl(request.url()), type: resourceType(request.resourceType()), status,
            duration_ms: round(end_ms), start_ms: start, size_bytes,
            failed: status === 0 || status >= 400,
          });
        } catch {
          done(null);
        }
      };
      const onFinished = (r: Request) => { if (r === request) { page.off('requestfinished', onFinished); page.off('requestfailed', onFailed); void finish(true); } };
      const onFailed = (r: Request) => { if (r === request) { page.off('requestfinished', onFinished); page.off('requestfailed', onFailed); void finish(false); } };
      page.on('requestfinished', onFinished);
      page.on('requestfailed', onFailed);
    });
  }

  /**
   * The ended requests in the order they started, `start_ms` relative to `origin_epoch_ms` (the
   * page's performance.timeOrigin; default the first request's start); waits up to `wait_ms`
   * for size look-ups still running.
   */
  async resources(origin_epoch_ms: number | null, wait_ms = 2000): Promise<BrowserResource[]> {
    const timeout = new Promise<null>((resolve) => { const t = setTimeout(() => resolve(null), wait_ms); t.unref(); });
    const got = (await Promise.all(this.items.filter((p) => p.ended).map((p) => Promise.race([p.settled, timeout])))).filter((r): r is BrowserResource => r !== null);
    const origin = origin_epoch_ms ?? Math.min(...got.map((r) => r.start_ms));
    return got.map((r) => ({ ...r, start_ms: round(r.start_ms - origin) }));
  }
}

/** The waterfall summary of `resources` (docs/operators/agent.md "Browser checks"), undefined when there are none. */
export function waterfallOf(resources: BrowserResource[]): BrowserWaterfall | undefined {
  if (resources.length === 0) return undefined;
  let first = Infinity;
  let last = 0;
  let slowest = 0;
  let bytes = 0;
  let failed = 0;
  for (const r of resources) {
    first = Math.min(first, r.start_ms);
    last = Math.max(last, r.start_ms + r.duration_ms);
    slowest = Math.max(slowest, r.duration_ms);
    bytes += r.size_bytes;
    if (r.failed) failed++;
  }
  return {
    failed_count: failed, first_resource_start_ms: round(first), last_resource_end_ms: round(last),
    resource_count: resources.length, slowest_resource_ms: round(slowest), transfer_bytes: bytes,
  };
}
