import type { BrowserContext } from 'playwright-core';
import type { TargetPolicy } from '../probes/target-policy.js';
import { proxySessionOf } from './proxy.js';

/** What the guard refused during one check: `url` and why. */
export interface Refusal { url: string; reason: string }

/**
 * Hold every request of `context` (made by the pool, so it has a proxy session) to `policy`, in
 * two layers. The connection layer is the node's target proxy (proxy.ts): this sets the session's
 * policy, and from then on the proxy resolves each host once, checks the address and connects
 * only to that address; Chromium never resolves a target itself, so a rebinding resolver gets no
 * second question. The request layer, here, asks the same session before Chromium sends a request
 * (documents, frames, subresources, XHR/fetch, WebSockets; service workers are blocked by the
 * context so none escapes routing) and aborts a refused one as `blockedbyclient`, so a refusal
 * shows as a refusal with its reason rather than as a proxy error; only http(s) and ws(s) leave
 * the browser. Both layers share one resolution per host and check.
 * @returns the refusals so far (the array fills while the page loads)
 * @throws Error when `context` was not made by the pool (no proxy session: nothing would be checked)
 */
export async function guardRequests(context: BrowserContext, policy: TargetPolicy): Promise<Refusal[]> {
  const session = proxySessionOf(context);
  if (!session) throw new Error('this browser context has no target proxy session (contexts must come from BrowserPool.use)');
  session.setPolicy(policy);
  const refused: Refusal[] = [];
  const verdict = async (raw: string): Promise<string | null> => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return 'not a valid URL';
    }
    if (!['http:', 'https:', 'ws:', 'wss:'].includes(url.protocol)) return `scheme ${url.protocol} is not allowed`;
    const r = await session.admit(url.hostname);
    return r.ok ? null : r.error;
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
