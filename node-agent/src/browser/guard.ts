import type { BrowserContext } from 'playwright-core';
import { resolveTarget } from '../probes/resolve.js';
import type { TargetPolicy } from '../probes/target-policy.js';

/** What the guard refused during one check: `url` and why. */
export interface Refusal { url: string; reason: string }

/**
 * Apply the check's target policy to every request the page makes (documents, subresources,
 * XHR/fetch, WebSockets; service workers are blocked by the context so none escapes routing):
 * its host is resolved (once per host and check) and the address checked with the probes'
 * rule (probes/resolve.ts); a refused one is aborted before Chromium connects. Only http(s) and
 * ws(s) leave the browser; other network schemes are aborted. Known gap: Chromium resolves the
 * name again itself, so a resolver that answers differently between the two look-ups (DNS
 * rebinding) is not caught.
 * @returns the refusals so far (the array fills while the page loads)
 */
export async function guardRequests(context: BrowserContext, policy: TargetPolicy): Promise<Refusal[]> {
  const refused: Refusal[] = [];
  const verdicts = new Map<string, Promise<string | null>>();
  const verdict = (raw: string): Promise<string | null> => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return Promise.resolve('not a valid URL');
    }
    if (!['http:', 'https:', 'ws:', 'wss:'].includes(url.protocol)) return Promise.resolve(`scheme ${url.protocol} is not allowed`);
    const host = url.hostname;
    let v = verdicts.get(host);
    if (!v) {
      v = resolveTarget(host, 'auto', policy).then((r) => (r.ok ? null : r.error));
      verdicts.set(host, v);
    }
    return v;
  };
  await context.route('**/*', async (route) => {
    const url = route.request().url();
    const reason = await verdict(url);
    if (reason === null) return route.continue().catch(() => undefined);
    refused.push({ url, reason });
    return route.abort('blockedbyclient').catch(() => undefined);
  });
  await context.routeWebSocket(() => true, async (ws) => {
    const reason = await verdict(ws.url());
    if (reason === null) { ws.connectToServer(); return; }
    refused.push({ url: ws.url(), reason });
    await ws.close({ code: 1008, reason: 'blocked by the target policy' }).catch(() => undefined);
  });
  return refused;
}
