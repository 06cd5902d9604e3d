import type { Api } from '../demo/api.js';

/** What a load loop did: requests answered 2xx, and the failures by first word of the error. */
export interface LoadStats {
  posted: number;
  accepted: number;
  failed: number;
  /** e.g. `{ "503": 4, "fetch failed": 7 }` */
  failures: Record<string, number>;
  task_ids: string[];
}

/**
 * Post probes through the public API every `every_ms` until stopped, at most `max_posts` (the
 * fault tests' "load"). A failed request (control plane down, database restarting) is counted,
 * never thrown: the loop goes on. Each request waits for the previous one, so a hanging control
 * plane slows the loop instead of piling requests up. `stats` is live (read it while the loop runs).
 * @param body the probe request, e.g. `{ target: '198.19.200.1:8080', nodes: { count: 3 } }`
 */
export function startLoad(api: Api, type: string, body: () => Record<string, unknown>, every_ms = 150, max_posts = 2000): { readonly stats: LoadStats; stop(): Promise<LoadStats> } {
  const stats: LoadStats = { posted: 0, accepted: 0, failed: 0, failures: {}, task_ids: [] };
  let stopped = false;
  let wake: (() => void) | null = null;
  const loop = (async () => {
    while (!stopped && stats.posted < max_posts) {
      const started = Date.now();
      stats.posted++;
      try {
        // No retry: the load counts what fails during a fault (Api.call retries 503/429 by default).
        const created = await api.call<{ task_ids: string[] }>('POST', `/v1/probe/${type}`, body(), 0);
        stats.accepted++;
        stats.task_ids.push(...created.task_ids);
      } catch (err) {
        stats.failed++;
        const key = /: (\d{3}) /.exec((err as Error).message)?.[1] ?? (err as Error).message.slice(0, 40);
        stats.failures[key] = (stats.failures[key] ?? 0) + 1;
      }
      const wait = Math.max(0, every_ms - (Date.now() - started));
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        wake = () => { clearTimeout(timer); resolve(); };
      });
      wake = null;
    }
  })();
  return {
    stats,
    async stop() {
      stopped = true;
      wake?.();
      await loop;
      return stats;
    },
  };
}
