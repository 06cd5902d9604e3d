import * as client from 'openid-client';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { publicBaseUrl } from '../config/public-url.js';
import type { OAuthProviderConfig } from '../config/oidc.js';

/** Who the provider says signed in: its stable subject and e-mail, and whether it vouches for the e-mail. */
export interface ProviderProfile {
  subject: string;
  /** '' when the provider gave none. */
  email: string;
  email_verified: boolean;
}

/** What a flow start keeps to finish the flow (PKCE verifier, OIDC nonce) and where the browser goes. */
export interface StartedFlow {
  authorization_url: string;
  code_verifier: string;
  nonce: string | null;
}

type Deps = Pick<AppDeps, 'config' | 'log'>;

/** The provider `id` of the configuration, or 404 NOT_FOUND. */
export function providerById(deps: Pick<AppDeps, 'config'>, id: string): OAuthProviderConfig {
  const p = deps.config.oidc_providers.find((x) => x.id === id);
  if (!p) throw new ApiError('NOT_FOUND', `no sign-in provider "${id}" on this deployment (VANTAGE_OIDC_PROVIDERS)`);
  return p;
}

/**
 * The redirect URI registered at the provider: `<public URL>/v1/auth/oauth/<id>/callback`
 * (config/public-url.ts), the same for login and link flows (RFC 6749 3.1.2).
 */
export function redirectUri(deps: Pick<AppDeps, 'config'>, provider_id: string): string {
  return `${publicBaseUrl(deps.config)}/v1/auth/oauth/${provider_id}/callback`;
}

// One discovery per provider and process; a failed one is tried again on the next flow.
const configurations = new WeakMap<OAuthProviderConfig, Promise<client.Configuration>>();

/**
 * The openid-client configuration of provider `p`: by OpenID Connect Discovery 1.0 from its
 * issuer, or GitHub's fixed endpoints (GitHub Docs "Authorizing OAuth apps"). Client
 * authentication is `client_secret_basic` for OIDC (RFC 6749 2.3.1), the form body for GitHub.
 * @throws ApiError 503 UNAVAILABLE when discovery fails
 */
async function configuration(deps: Deps, p: OAuthProviderConfig): Promise<client.Configuration> {
  let pending = configurations.get(p);
  if (!pending) {
    pending = (async () => {
      const options = p.allow_http ? { execute: [client.allowInsecureRequests] } : undefined;
      if (p.kind === 'oidc') return client.discovery(new URL(p.issuer), p.client_id, p.client_secret, client.ClientSecretBasic(p.client_secret), options);
      const config = new client.Configuration({
        issuer: p.base_url,
        authorization_endpoint: `${p.base_url}/login/oauth/authorize`,
        token_endpoint: `${p.base_url}/login/oauth/access_token`,
      }, p.client_id, p.client_secret, client.ClientSecretPost(p.client_secret));
      if (p.allow_http) client.allowInsecureRequests(config);
      config[client.customFetch] = githubTokenFetch;
      return config;
    })();
    configurations.set(p, pending);
    pending.catch(() => configurations.delete(p));
  }
  try {
    return await pending;
  } catch (err) {
    deps.log.warn({ err: String(err), provider: p.id }, 'sign-in provider discovery failed');
    throw new ApiError('UNAVAILABLE', `sign-in provider "${p.id}" cannot be reached; try again later`);
  }
}

/**
 * Build the authorization request for provider `p` with `state` (RFC 6749 10.12), PKCE S256
 * (RFC 7636) and, for OIDC, a nonce (OpenID Connect Core 1.0 3.1.2.1).
 * @throws ApiError 503 UNAVAILABLE when the provider's discovery fails
 */
export async function startFlow(deps: Deps, p: OAuthProviderConfig, state: string): Promise<StartedFlow> {
  const config = await configuration(deps, p);
  const code_verifier = client.randomPKCECodeVerifier();
  const nonce = p.kind === 'oidc' ? client.randomNonce() : null;
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri(deps, p.id),
    scope: p.kind === 'oidc' ? p.scopes.join(' ') : 'read:user user:email',
    state,
    code_challenge: await client.calculatePKCECodeChallenge(code_verifier),
    code_challenge_method: 'S256',
    ...(nonce ? { nonce } : {}),
  });
  return { authorization_url: url.href, code_verifier, nonce };
}

/**
 * Finish a flow: exchange `code` at the token endpoint with the PKCE verifier, check `state`,
 * `iss` (RFC 9207) and, for OIDC, the ID token and its nonce, then read who signed in: the ID
 * token's `sub`, `email`, `email_verified` (userinfo when the ID token has no e-mail), or GitHub's
 * `/user` id and its primary e-mail of `/user/emails` (verified as GitHub says).
 * @throws ApiError 400 AUTH_OAUTH_STATE_INVALID when the provider refuses the code or an answer
 *   fails a check (`details.reason`), 503 UNAVAILABLE when it cannot be reached
 */
export async function finishFlow(deps: Deps, p: OAuthProviderConfig, f: { code: string; state: string; iss?: string | undefined; code_verifier: string; nonce: string | null }): Promise<ProviderProfile> {
  const config = await configuration(deps, p);
  const current = new URL(redirectUri(deps, p.id));
  current.searchParams.set('code', f.code);
  current.searchParams.set('state', f.state);
  if (f.iss !== undefined) current.searchParams.set('iss', f.iss);
  try {
    const tokens = await client.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: f.code_verifier, expectedState: f.state,
      ...(f.nonce ? { expectedNonce: f.nonce, idTokenExpected: true } : {}),
    });
    if (p.kind === 'github') return await githubProfile(p, tokens.access_token);
    const claims = tokens.claims()!;
    let email = typeof claims.email === 'string' ? claims.email : '';
    let verified = claims.email_verified === true;
    if (!email && config.serverMetadata().userinfo_endpoint) {
      const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
      email = typeof info.email === 'string' ? info.email : '';
      verified = info.email_verified === true;
    }
    return { subject: claims.sub, email, email_verified: verified && email !== '' };
  } catch (err) {
    if (err instanceof ApiError) throw err;
    if (err instanceof client.ResponseBodyError || err instanceof client.AuthorizationResponseError) {
      throw new ApiError('AUTH_OAUTH_STATE_INVALID', `the provider refused the sign-in (${err.error}); start again`, { reason: 'provider_refused', provider_error: err.error });
    }
    if (err instanceof client.ClientError) {
      deps.log.warn({ err: err.message, code: err.code, provider: p.id }, 'sign-in provider answer failed a check');
      throw new ApiError('AUTH_OAUTH_STATE_INVALID', `the provider's answer failed a check (${err.code ?? 'invalid'}); start again`, { reason: 'provider_answer_invalid' });
    }
    deps.log.warn({ err: String(err), provider: p.id }, 'sign-in provider unreachable');
    throw new ApiError('UNAVAILABLE', `sign-in provider "${p.id}" cannot be reached; try again later`);
  }
}

/**
 * GitHub answers a refused code with status 200 and `{error, error_description}` (GitHub Docs
 * "Troubleshooting OAuth app access token request errors"); as status 400 it reads as the OAuth
 * error response it is (RFC 6749 5.2).
 */
const githubTokenFetch: client.CustomFetch = async (url, options) => {
  const res = await fetch(url, options as RequestInit);
  if (res.status !== 200 || !(res.headers.get('content-type') ?? '').includes('json')) return res;
  const text = await res.text();
  let error = false;
  try { error = typeof (JSON.parse(text) as { error?: unknown }).error === 'string'; } catch { /* not JSON: left to the client's checks */ }
  return new Response(text, { status: error ? 400 : 200, headers: res.headers });
};

/** GitHub REST API: `GET /user` (id) and `GET /user/emails` (primary, verified) with the user's token. */
async function githubProfile(p: Extract<OAuthProviderConfig, { kind: 'github' }>, access_token: string): Promise<ProviderProfile> {
  const get = async (path: string): Promise<unknown> => {
    const res = await fetch(`${p.api_url}${path}`, {
      headers: { authorization: `Bearer ${access_token}`, accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28', 'user-agent': 'vantage' },
      signal: AbortSignal.timeout(10_000),
    });
    if (!res.ok) throw new ApiError('AUTH_OAUTH_STATE_INVALID', `GitHub answered ${res.status} to ${path}; start again`, { reason: 'provider_answer_invalid' });
    return res.json();
  };
  const user = (await get('/user')) as { id?: unknown; email?: unknown };
  if (typeof user.id !== 'number' && typeof user.id !== 'string') throw new ApiError('AUTH_OAUTH_STATE_INVALID', 'GitHub gave no user id; start again', { reason: 'provider_answer_invalid' });
  const emails = (await get('/user/emails')) as Array<{ email?: unknown; primary?: unknown; verified?: unknown }>;
  const primary = Array.isArray(emails) ? emails.find((e) => e.primary === true && typeof e.email === 'string') : undefined;
  if (primary) return { subject: String(user.id), email: primary.email as string, email_verified: primary.verified === true };
  return { subject: String(user.id), email: typeof user.email === 'string' ? user.email : '', email_verified: false };
}
