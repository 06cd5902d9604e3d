import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/*
 * Test support for single sign-on: a real OpenID Connect provider (oidc-provider, its development
 * login and consent pages) and a loopback server answering GitHub's documented OAuth and REST
 * endpoints (GitHub Docs "Authorizing OAuth apps", "REST API endpoints for users"), plus a browser
 * stand-in that follows an authorization URL to the redirect back to us.
 */

interface Teardown { teardown(fn: () => unknown): void }

/** Claims of an account at the test OIDC provider, by its `sub`. */
export type OidcAccounts = Record<string, { email?: string; email_verified?: boolean }>;

async function listen(t: Teardown, handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => { server.closeAllConnections(); return new Promise<void>((resolve) => server.close(() => resolve())); });
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/**
 * Start an oidc-provider issuer on 127.0.0.1 with one confidential client (client_secret_basic,
 * PKCE required) allowed to redirect to `redirect_uri`. `accounts` is read at each login, so a
 * test may change it.
 * @returns `{ issuer, client_id, client_secret }`
 */
export async function startOidcProvider(t: Teardown, redirect_uri: string, accounts: OidcAccounts): Promise<{ issuer: string; client_id: string; client_secret: string }> {
  let callback: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const { url: issuer } = await listen(t, (req, res) => callback!(req, res));
  const client_id = 'vantage-test';
  const client_secret = randomBytes(24).toString('base64url');
  const provider = new Provider(issuer, {
    clients: [{ client_id, client_secret, redirect_uris: [redirect_uri], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic' }],
    findAccount: async (_ctx, sub) => accounts[sub] ? { accountId: sub, claims: async () => ({ sub, ...accounts[sub] }) } : undefined,
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    cookies: { keys: [randomBytes(16).toString('hex')] },
    pkce: { required: () => true },
  });
  callback = provider.callback();
  return { issuer, client_id, client_secret };
}

/** Cookies kept across the requests of one browser stand-in (names only; paths ignored). */
class Jar {
  private readonly cookies = new Map<string, string>();
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/**
 * Play the browser: follow `authorization_url` through the provider's pages (the OIDC
 * provider's development login form, signed in as `login`, and its consent form) until it
 * redirects to a URL starting with `redirect_prefix`.
 * @returns that redirect URL (with `code`, `state`, `iss` or an error)
 */
export async function followAuthorization(authorization_url: string, redirect_prefix: string, login?: string): Promise<URL> {
  const jar = new Jar();
  let url = new URL(authorization_url);
  let form: URLSearchParams | undefined;
  for (let hop = 0; hop < 20; hop++) {
    const res = await fetch(url, {
      method: form ? 'POST' : 'GET', redirect: 'manual',
      headers: { cookie: jar.header(), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(form ? { body: form.toString() } : {}),
    });
    jar.take(res);
    form = undefined;
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel();
      url = new URL(res.headers.get('location')!, url);
      if (url.href.startsWith(redirect_prefix)) return url;
      continue;
    }
    const html = await res.text();
    const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
    if (res.status !== 200 || !prompt) throw new Error(`unexpected page at ${url.href}: ${res.status} ${html.slice(0, 300)}`);
    form = new URLSearchParams({ prompt, ...(prompt === 'login' ? { login: login ?? '', password: 'any' } : {}) });
  }
  throw new Error('too many redirects');
}

/** A GitHub user of the stand-in: its numeric id, `/user` e-mail and `/user/emails` list. */
export interface GithubUser {
  id: number;
  login: string;
  email: string | null;
  emails: Array<{ email: string; primary: boolean; verified: boolean }>;
}

/**
 * Serve GitHub's OAuth app endpoints on 127.0.0.1: `GET /login/oauth/authorize` signs in
 * `state.login` at once and redirects with a code; `POST /login/oauth/access_token` checks the
 * client, the code (once, same redirect URI) and PKCE S256, and answers as GitHub does (status 200
 * with `{error}` on refusal); `GET /api/user` and `GET /api/user/emails` need the token.
 * @returns `{ base_url, api_url, client_id, client_secret, state }`: set `state.login` to the user signing in
 */
export async function startGithubStandIn(t: Teardown, users: Record<string, GithubUser>): Promise<{ base_url: string; api_url: string; client_id: string; client_secret: string; state: { login: string; token_requests: number } }> {
  const client_id = 'Iv1.test';
  const client_secret = randomBytes(20).toString('hex');
  const state = { login: '', token_requests: 0 };
  const codes = new Map<string, { login: string; challenge: string; redirect_uri: string }>();
  const tokens = new Map<string, string>();
  const json = (res: ServerResponse, status: number, body: unknown) => { res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }); res.end(JSON.stringify(body)); };
  const { url } = await listen(t, (req, res) => {
    const u = new URL(req.url!, 'http://x');
    if (req.method === 'GET' && u.pathname === '/login/oauth/authorize') {
      const redirect = new URL(u.searchParams.get('redirect_uri')!);
      if (u.searchParams.get('client_id') !== client_id || u.searchParams.get('code_challenge_method') !== 'S256') return json(res, 400, { message: 'bad request' });
      const code = randomBytes(10).toString('hex');
      codes.set(code, { login: state.login, challenge: u.searchParams.get('code_challenge')!, redirect_uri: redirect.href });
      redirect.searchParams.set('code', code);
      redirect.searchParams.set('state', u.searchParams.get('state')!);
      res.writeHead(302, { location: redirect.href });
      return res.end();
    }
    if (req.method === 'POST' && u.pathname === '/login/oauth/access_token') {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        state.token_requests++;
        const f = new URLSearchParams(body);
        if (!(req.headers.accept ?? '').includes('application/json')) return json(res, 406, { message: 'ask for JSON' });
        if (f.get('client_id') !== client_id || f.get('client_secret') !== client_secret) return json(res, 200, { error: 'incorrect_client_credentials', error_description: 'The client_id and/or client_secret passed are incorrect.' });
        const grant = codes.get(f.get('code') ?? '');
        codes.delete(f.get('code') ?? '');
        const challenge = createHash('sha256').update(f.get('code_verifier') ?? '').digest('base64url');
        if (!grant || grant.redirect_uri !== f.get('redirect_uri') || grant.challenge !== challenge) return json(res, 200, { error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.' });
        const token = `gho_${randomBytes(18).toString('hex')}`;
        tokens.set(token, grant.login);
        json(res, 200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' });
      });
      return;
    }
    const login = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
    if (req.method === 'GET' && (u.pathname === '/api/user' || u.pathname === '/api/user/emails')) {
      if (!login || !users[login]) return json(res, 401, { message: 'Bad credentials' });
      const user = users[login];
      return json(res, 200, u.pathname === '/api/user' ? { id: user.id, login: user.login, email: user.email } : user.emails);
    }
    json(res, 404, { message: 'Not Found' });
  });
  return { base_url: url, api_url: `${url}/api`, client_id, client_secret, state };
}
