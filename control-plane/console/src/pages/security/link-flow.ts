import type { OAuthStartResponse } from '@vantage/shared-protocol';
import { api } from '../../api/client.js';

/** sessionStorage key of the link flow this tab started: `{provider, state}` (the tab goes to the provider and comes back). */
const KEY = 'vantage.link_flow';

/**
 * Start linking `provider` to the signed-in account (POST /v1/account/identities/{provider}/start,
 * docs/api/accounts.md "Single sign-on (OIDC, GitHub)"): remember which flow this tab started and
 * send the tab to the provider, which comes back through the API's redirect URI to /security/link.
 */
export async function startLink(provider: string): Promise<void> {
  const flow = await api<OAuthStartResponse>('POST', `/v1/account/identities/${encodeURIComponent(provider)}/start`);
  sessionStorage.setItem(KEY, JSON.stringify({ provider, state: flow.state }));
  location.assign(flow.authorization_url);
}

/** Whether this tab started the link flow of `provider` with `state` (forgotten once asked: a flow finishes once). */
export function takeStartedLink(provider: string, state: string): boolean {
  const kept = sessionStorage.getItem(KEY);
  sessionStorage.removeItem(KEY);
  if (!kept) return false;
  const started = JSON.parse(kept) as { provider?: unknown; state?: unknown };
  return started.provider === provider && started.state === state;
}
