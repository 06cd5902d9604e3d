import t from 'tap';
import { call, createApiKey, registerUser, testApp } from '../test-support/app.js';
import { hashSecret } from './secrets.js';
import { currentTotp } from './totp.js';
import { followAuthorization, startGithubStandIn, startOidcProvider, type GithubUser, type OidcAccounts } from './oidc-test-servers.js';

/*
 * Single sign-on (docs/api/accounts.md "Single sign-on (OIDC, GitHub)") against a real OpenID
 * Connect provider (oidc-provider on loopback, its login and consent pages driven over HTTP) and a
 * loopback server answering GitHub's documented OAuth endpoints.
 */

const PUBLIC_URL = 'https://vantage.example.test';
const redirect = (id: string) => `${PUBLIC_URL}/v1/auth/oauth/${id}/callback`;
type App = Awaited<ReturnType<typeof testApp>>['app'];

async function setup(t: Parameters<typeof testApp>[0], accounts: OidcAccounts, config: Record<string, unknown> = {}) {
  const corp = await startOidcProvider(t, redirect('corp'), accounts);
  const other = await startOidcProvider(t, redirect('other'), accounts);
  const oidc = (id: string, p: typeof corp) => ({ id, name: `${id} SSO`, kind: 'oidc' as const, issuer: p.issuer, client_id: p.client_id, client_secret: p.client_secret, allow_http: true });
  const env = await testApp(t, { config: { public_url: PUBLIC_URL, oidc_providers: JSON.stringify([oidc('corp', corp), oidc('other', other)]) as never, ...config } });
  return env;
}

/** Start a login (or, with `token`, a link) flow and sign in at the provider as `sub`. @returns the callback's code, state and iss */
async function signIn(app: App, provider: string, sub: string, token?: string): Promise<{ code: string; state: string; iss?: string }> {
  const start = await call(app, 'POST', token ? `/v1/account/identities/${provider}/start` : `/v1/auth/oauth/${provider}/start`, token ? { token } : {});
  if (start.status !== 200) throw new Error(`start: ${start.status} ${JSON.stringify(start.body)}`);
  const back = await followAuthorization(start.body.data.authorization_url, redirect(provider), sub);
  if (back.searchParams.get('state') !== start.body.data.state) throw new Error('state not carried back');
  const iss = back.searchParams.get('iss');
  return { code: back.searchParams.get('code')!, state: back.searchParams.get('state')!, ...(iss ? { iss } : {}) };
}

const callback = (app: App, provider: string, body: Record<string, unknown>) => call(app, 'POST', `/v1/auth/oauth/${provider}/callback`, { body });

t.test('the public provider list names each provider, never its client', async (t) => {
  const { app } = await setup(t, {});
  const res = await call(app, 'GET', '/v1/auth/oauth/providers');
  t.equal(res.status, 200);
  t.same(res.body.data.providers, [{ id: 'corp', name: 'corp SSO', kind: 'oidc' }, { id: 'other', name: 'other SSO', kind: 'oidc' }]);
  t.notMatch(JSON.stringify(res.body), /client|secret|127\.0\.0\.1/);
  const unknown = await call(app, 'POST', '/v1/auth/oauth/nope/start');
  t.equal(unknown.status, 404);
  t.equal(unknown.body.error.code, 'NOT_FOUND');
});

t.test('a new identity with a verified e-mail makes a passwordless account; the next sign-in opens a session for it', async (t) => {
  const { app, sql } = await setup(t, { alice: { email: 'alice@corp.test', email_verified: true } });
  const start = await call(app, 'POST', '/v1/auth/oauth/corp/start');
  t.equal(start.status, 200);
  const authz = new URL(start.body.data.authorization_url);
  t.equal(authz.searchParams.get('code_challenge_method'), 'S256', 'PKCE S256');
  t.ok(authz.searchParams.get('nonce'), 'OIDC nonce');
  t.equal(authz.searchParams.get('state'), start.body.data.state);
  t.equal(authz.searchParams.get('redirect_uri'), redirect('corp'), 'redirect URI from the public URL');
  t.equal(start.body.data.expires_in_s, 600);

  const back = await followAuthorization(start.body.data.authorization_url, redirect('corp'), 'alice');
  const first = await callback(app, 'corp', { code: back.searchParams.get('code'), state: back.searchParams.get('state'), iss: back.searchParams.get('iss') });
  t.equal(first.status, 201, JSON.stringify(first.body));
  t.match(first.body.data, { token_type: 'Bearer', access_token: String, refresh_token: /^rt_/ });
  t.match(first.body.meta, { created: true, is_admin: true });
  const profile = await call(app, 'GET', '/v1/account/profile', { token: first.body.data.access_token });
  t.match(profile.body.data, { email: 'alice@corp.test', email_verified: true, has_password: false });
  const ids = await call(app, 'GET', '/v1/account/identities', { token: first.body.data.access_token });
  t.equal(ids.body.data.identities.length, 1);
  t.match(ids.body.data.identities[0], { id: /^idn_/, provider: 'corp', provider_name: 'corp SSO', kind: 'oidc', subject: 'alice', email: 'alice@corp.test' });

  // The redirect URI itself (GET with the provider's query) completes a sign-in too.
  const again = await signIn(app, 'corp', 'alice');
  const second = await call(app, 'GET', `/v1/auth/oauth/corp/callback?${new URLSearchParams(again)}`);
  t.equal(second.status, 200, JSON.stringify(second.body));
  t.equal(second.body.data.user_id, first.body.data.user_id, 'same account');
  t.same(second.body.meta, { created: false });
  t.equal((await sql`SELECT count(*)::int AS n FROM users`)[0]!.n, 1, 'no second account');
  t.ok((await sql`SELECT last_login_at FROM oauth_identities`)[0]!.last_login_at, 'last login noted');

  await sql`UPDATE users SET status = 'disabled'`;
  const disabled = await callback(app, 'corp', await signIn(app, 'corp', 'alice'));
  t.equal(disabled.status, 403);
  t.equal(disabled.body.error.code, 'AUTH_ACCOUNT_DISABLED');
});

t.test('state: unknown, reused, expired or another provider\'s → 400 AUTH_OAUTH_STATE_INVALID', async (t) => {
  const { app, sql } = await setup(t, { bob: { email: 'bob@corp.test', email_verified: true } });
  const unknown = await callback(app, 'corp', { code: 'x', state: 'never-issued' });
  t.equal(unknown.status, 400);
  t.match(unknown.body.error, { code: 'AUTH_OAUTH_STATE_INVALID', details: { reason: 'unknown_or_used' } });

  const cb = await signIn(app, 'corp', 'bob');
  const ok = await callback(app, 'corp', cb);
  t.equal(ok.status, 201);
  const reused = await callback(app, 'corp', cb);
  t.equal(reused.status, 400, 'a state serves once');
  t.match(reused.body.error, { code: 'AUTH_OAUTH_STATE_INVALID', details: { reason: 'unknown_or_used' } });

  const forCorp = await signIn(app, 'corp', 'bob');
  const crossed = await callback(app, 'other', forCorp);
  t.equal(crossed.status, 400);
  t.match(crossed.body.error, { code: 'AUTH_OAUTH_STATE_INVALID', details: { reason: 'other_provider' } });
  t.equal((await callback(app, 'corp', forCorp)).status, 400, 'and it is used up');

  const late = await signIn(app, 'corp', 'bob');
  await sql`UPDATE oauth_states SET expires_at = now() - interval '1 second'`;
  const expired = await callback(app, 'corp', late);
  t.equal(expired.status, 400);
  t.match(expired.body.error, { code: 'AUTH_OAUTH_STATE_INVALID', details: { reason: 'expired' } });

  const badCode = await callback(app, 'corp', { ...(await signIn(app, 'corp', 'bob')), code: 'forged-code' });
  t.equal(badCode.status, 400, 'a code the provider refuses');
  t.match(badCode.body.error, { code: 'AUTH_OAUTH_STATE_INVALID', details: { reason: 'provider_refused', provider_error: 'invalid_grant' } });

  const refused = await call(app, 'GET', `/v1/auth/oauth/corp/callback?${new URLSearchParams({ state: (await call(app, 'POST', '/v1/auth/oauth/corp/start')).body.data.state, error: 'access_denied' })}`);
  t.equal(refused.status, 400);
  t.match(refused.body.error, { code: 'AUTH_OAUTH_STATE_INVALID', details: { reason: 'provider_refused', provider_error: 'access_denied' } });
  t.equal((await sql`SELECT count(*)::int AS n FROM users`)[0]!.n, 1, 'only the one good sign-in made an account');
});

t.test('a verified e-mail of an existing account is never linked silently: its owner confirms', async (t) => {
  const { app, sql } = await setup(t, { carol: { email: 'Carol@corp.test', email_verified: true } });
  const owner = await registerUser(app, 'carol@corp.test');
  const stranger = await registerUser(app);
  const offer = await callback(app, 'corp', await signIn(app, 'corp', 'carol'));
  t.equal(offer.status, 409, JSON.stringify(offer.body));
  t.match(offer.body.error, { code: 'CONFLICT', details: { reason: 'link_required', link_token: String, provider: 'corp', email: 'Carol@corp.test', expires_in_s: 600 } });
  t.equal((await sql`SELECT count(*)::int AS n FROM oauth_identities`)[0]!.n, 0, 'nothing linked yet');
  const link_token = offer.body.error.details.link_token;

  const notYours = await call(app, 'POST', '/v1/account/identities/link', { token: stranger.access_token, body: { link_token } });
  t.equal(notYours.status, 400, 'another account cannot take the offer');
  t.equal(notYours.body.error.code, 'AUTH_OAUTH_STATE_INVALID');
  const key = await createApiKey(app, owner.access_token);
  const byKey = await call(app, 'POST', '/v1/account/identities/link', { token: key.key, body: { link_token } });
  t.equal(byKey.status, 403, 'an API key cannot add a way into the account');
  const confirmed = await call(app, 'POST', '/v1/account/identities/link', { token: owner.access_token, body: { link_token } });
  t.equal(confirmed.status, 201, JSON.stringify(confirmed.body));
  t.match(confirmed.body.data, { provider: 'corp', subject: 'carol' });
  t.equal((await call(app, 'POST', '/v1/account/identities/link', { token: owner.access_token, body: { link_token } })).status, 400, 'the offer serves once');

  const login = await callback(app, 'corp', await signIn(app, 'corp', 'carol'));
  t.equal(login.status, 200);
  t.equal(login.body.data.user_id, owner.user_id, 'now the identity logs in to the owner\'s account');
});

t.test('an unverified provider e-mail never links; alone it makes an unverified account', async (t) => {
  const accounts: OidcAccounts = { dave: { email: 'dave@corp.test', email_verified: false }, erin: { email: 'erin@corp.test' } };
  const { app, sql } = await setup(t, accounts);
  await registerUser(app, 'dave@corp.test');
  const taken = await callback(app, 'corp', await signIn(app, 'corp', 'dave'));
  t.equal(taken.status, 409);
  t.equal(taken.body.error.code, 'ACCOUNT_EMAIL_TAKEN');
  t.equal((await sql`SELECT count(*)::int AS n FROM oauth_link_offers`)[0]!.n, 0, 'no link offered');

  const created = await callback(app, 'corp', await signIn(app, 'corp', 'erin'));
  t.equal(created.status, 201);
  const profile = await call(app, 'GET', '/v1/account/profile', { token: created.body.data.access_token });
  t.match(profile.body.data, { email: 'erin@corp.test', email_verified: false, has_password: false });
  t.match(created.body.meta, { created: true, verification_email: 'logged' }, 'a verification e-mail goes out as after a registration');
});

t.test('new identities meet VANTAGE_REGISTRATION', async (t) => {
  const { app, sql } = await setup(t, { frank: { email: 'frank@corp.test', email_verified: true } }, { registration: 'closed' });
  await registerUser(app, 'first@example.test');
  const refused = await callback(app, 'corp', await signIn(app, 'corp', 'frank'));
  t.equal(refused.status, 403);
  t.match(refused.body.error, { code: 'FORBIDDEN', details: { setting: 'VANTAGE_REGISTRATION', reason: 'registration_closed' } });
  t.equal((await sql`SELECT count(*)::int AS n FROM users`)[0]!.n, 1, 'nothing created');
});

t.test('linking while signed in; an identity of another account → 409 AUTH_OAUTH_LINKED_OTHER_USER', async (t) => {
  const { app, sql } = await setup(t, { gina: { email: 'gina@elsewhere.test', email_verified: true } });
  const a = await registerUser(app);
  const b = await registerUser(app);
  const linked = await call(app, 'POST', '/v1/account/identities/corp/callback', { token: a.access_token, body: await signIn(app, 'corp', 'gina', a.access_token) });
  t.equal(linked.status, 201, JSON.stringify(linked.body));
  t.match(linked.body.data, { provider: 'corp', subject: 'gina', email: 'gina@elsewhere.test', last_login_at: null });
  const again = await call(app, 'POST', '/v1/account/identities/corp/callback', { token: a.access_token, body: await signIn(app, 'corp', 'gina', a.access_token) });
  t.equal(again.status, 200, 'linking it again changes nothing');
  t.equal(again.body.data.id, linked.body.data.id);

  const taken = await call(app, 'POST', '/v1/account/identities/corp/callback', { token: b.access_token, body: await signIn(app, 'corp', 'gina', b.access_token) });
  t.equal(taken.status, 409);
  t.equal(taken.body.error.code, 'AUTH_OAUTH_LINKED_OTHER_USER');

  // A link flow's state completes nothing but that user's link, and wrong callbacks leave it to that one.
  const aFlow = await signIn(app, 'corp', 'gina', a.access_token);
  const asLogin = await callback(app, 'corp', aFlow);
  t.equal(asLogin.status, 400);
  t.match(asLogin.body.error.details, { reason: 'other_purpose' });
  const byOther = await call(app, 'POST', '/v1/account/identities/corp/callback', { token: b.access_token, body: aFlow });
  t.equal(byOther.status, 400, 'another account cannot complete a link flow');
  t.match(byOther.body.error.details, { reason: 'other_purpose' });
  const finished = await call(app, 'POST', '/v1/account/identities/corp/callback', { token: a.access_token, body: aFlow });
  t.equal(finished.status, 200, 'the refusals did not use up the state: its own account completes it');
  const twice = await call(app, 'POST', '/v1/account/identities/corp/callback', { token: a.access_token, body: aFlow });
  t.equal(twice.status, 400, 'once');
  t.match(twice.body.error.details, { reason: 'unknown_or_used' });
  const loginFlow = await signIn(app, 'corp', 'gina');
  const loginAsLink = await call(app, 'POST', '/v1/account/identities/corp/callback', { token: a.access_token, body: loginFlow });
  t.equal(loginAsLink.status, 400, 'a login state does not link');
  t.equal((await callback(app, 'corp', loginFlow)).status, 200, 'nor is it used up by that refusal');

  const key = await createApiKey(app, a.access_token);
  t.equal((await call(app, 'POST', '/v1/account/identities/corp/start', { token: key.key })).status, 403, 'a key cannot start a link');
  t.equal((await sql`SELECT count(*)::int AS n FROM oauth_identities`)[0]!.n, 1);
  const login = await callback(app, 'corp', await signIn(app, 'corp', 'gina'));
  t.equal(login.body.data.user_id, a.user_id, 'the linked identity logs in to A');
});

t.test('the redirect URI hands a link flow to the console\'s finishing page, leaving its state to the signed-in POST', async (t) => {
  const { app, sql } = await setup(t, { jo: { email: 'jo@elsewhere.test', email_verified: true } });
  const a = await registerUser(app);
  const b = await registerUser(app);
  const flow = await signIn(app, 'corp', 'jo', a.access_token);
  const landed = await call(app, 'GET', `/v1/auth/oauth/corp/callback?${new URLSearchParams(flow)}`);
  t.equal(landed.status, 303, 'a redirect, not a sign-in');
  t.match(Object.fromEntries(landed.headers), { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' }, 'kept from caches and Referer');
  const location = new URL(landed.headers.get('location')!, PUBLIC_URL);
  t.equal(location.origin, PUBLIC_URL, 'to this origin only');
  t.equal(location.pathname, '/security/link', 'the console\'s page');
  t.same([...location.searchParams], [['provider', 'corp']], 'the query names the provider alone');
  const carried = new URLSearchParams(location.hash.slice(1));
  t.same({ code: carried.get('code'), state: carried.get('state'), iss: carried.get('iss') }, { code: flow.code, state: flow.state, iss: flow.iss ?? null }, 'code, state and iss in the fragment');
  t.equal((await sql`SELECT count(*)::int AS n FROM oauth_states`)[0]!.n, 1, 'the state is not used up');
  t.equal((await sql`SELECT count(*)::int AS n FROM users`)[0]!.n, 2, 'no account made');

  const body = { code: carried.get('code'), state: carried.get('state'), iss: carried.get('iss') };
  const byOther = await call(app, 'POST', '/v1/account/identities/corp/callback', { token: b.access_token, body });
  t.equal(byOther.status, 400, 'not by another account');
  t.match(byOther.body.error, { code: 'AUTH_OAUTH_STATE_INVALID', details: { reason: 'other_purpose' } });
  const linked = await call(app, 'POST', '/v1/account/identities/corp/callback', { token: a.access_token, body });
  t.equal(linked.status, 201, JSON.stringify(linked.body));
  t.match(linked.body.data, { provider: 'corp', subject: 'jo' });
  const twice = await call(app, 'POST', '/v1/account/identities/corp/callback', { token: a.access_token, body });
  t.equal(twice.status, 400, 'refused twice');
  t.match(twice.body.error.details, { reason: 'unknown_or_used' });
  const replayed = await call(app, 'GET', `/v1/auth/oauth/corp/callback?${new URLSearchParams(flow)}`);
  t.equal(replayed.status, 400, 'a used state is no link flow any more: no redirect');
  t.match(replayed.body.error.details, { reason: 'unknown_or_used' });

  const refused = (await call(app, 'POST', '/v1/account/identities/corp/start', { token: a.access_token })).body.data.state;
  const denied = await call(app, 'GET', `/v1/auth/oauth/corp/callback?${new URLSearchParams({ state: refused, error: 'access_denied' })}`);
  t.equal(denied.status, 303, 'a provider refusal goes to the console too');
  t.same(Object.fromEntries(new URLSearchParams(new URL(denied.headers.get('location')!, PUBLIC_URL).hash.slice(1))), { state: refused, error: 'access_denied' });

  const elsewhere = await signIn(app, 'corp', 'jo', a.access_token);
  const crossed = await call(app, 'GET', `/v1/auth/oauth/other/callback?${new URLSearchParams(elsewhere)}`);
  t.equal(crossed.status, 400, 'another provider\'s redirect URI does not hand it on');
  t.match(crossed.body.error.details, { reason: 'other_purpose' });
  t.equal((await call(app, 'GET', `/v1/auth/oauth/nope/callback?${new URLSearchParams(elsewhere)}`)).status, 404, 'an unknown provider');
  t.equal((await call(app, 'POST', '/v1/account/identities/corp/callback', { token: a.access_token, body: elsewhere })).status, 200, 'still usable by its own account');
});

t.test('unlinking: never the last way to log in; another user\'s identity is 404', async (t) => {
  const { app } = await setup(t, { hank: { email: 'hank@corp.test', email_verified: true } });
  const sso = await callback(app, 'corp', await signIn(app, 'corp', 'hank'));
  t.equal(sso.status, 201);
  const token = sso.body.data.access_token;
  const [only] = (await call(app, 'GET', '/v1/account/identities', { token })).body.data.identities;
  const last = await call(app, 'DELETE', `/v1/account/identities/${only.id}`, { token });
  t.equal(last.status, 409);
  t.match(last.body.error, { code: 'CONFLICT', details: { reason: 'last_login_method' } });

  const other = await registerUser(app);
  t.equal((await call(app, 'DELETE', `/v1/account/identities/${only.id}`, { token: other.access_token })).status, 404, 'not yours: 404');
  const linked = await call(app, 'POST', '/v1/account/identities/other/callback', { token, body: await signIn(app, 'other', 'hank', token) });
  t.equal(linked.status, 201, 'a second provider');
  t.equal((await call(app, 'DELETE', `/v1/account/identities/${only.id}`, { token })).status, 200, 'with another identity left, it goes');
  t.equal((await call(app, 'DELETE', `/v1/account/identities/${linked.body.data.id}`, { token })).status, 409, 'the remaining one stays');

  const withPassword = await registerUser(app);
  const own = await call(app, 'POST', '/v1/account/identities/corp/callback', { token: withPassword.access_token, body: await signIn(app, 'corp', 'hank', withPassword.access_token) });
  t.equal(own.status, 201);
  t.equal((await call(app, 'DELETE', `/v1/account/identities/${own.body.data.id}`, { token: withPassword.access_token })).status, 200, 'an account with a password unlinks freely');
  t.equal((await call(app, 'GET', '/v1/account/identities', { token: withPassword.access_token })).body.data.identities.length, 0);
});

t.test('GitHub preset against GitHub\'s documented endpoints on loopback', async (t) => {
  const users: Record<string, GithubUser> = {
    octo: { id: 583231, login: 'octocat', email: null, emails: [{ email: 'old@gh.test', primary: false, verified: true }, { email: 'octo@gh.test', primary: true, verified: true }] },
    nope: { id: 99, login: 'unverified', email: 'nv@gh.test', emails: [{ email: 'nv@gh.test', primary: true, verified: false }] },
  };
  const gh = await startGithubStandIn(t, users);
  const github = { id: 'github', kind: 'github' as const, client_id: gh.client_id, client_secret: gh.client_secret, base_url: gh.base_url, api_url: gh.api_url, allow_http: true };
  const wrong = { ...github, id: 'gh-wrong', name: 'Wrong secret', client_secret: 'not-the-secret' };
  const { app } = await testApp(t, { config: { public_url: PUBLIC_URL, oidc_providers: JSON.stringify([github, wrong]) as never } });
  t.same((await call(app, 'GET', '/v1/auth/oauth/providers')).body.data.providers, [{ id: 'github', name: 'GitHub', kind: 'github' }, { id: 'gh-wrong', name: 'Wrong secret', kind: 'github' }]);

  gh.state.login = 'octo';
  const start = await call(app, 'POST', '/v1/auth/oauth/github/start');
  const authz = new URL(start.body.data.authorization_url);
  t.equal(authz.origin + authz.pathname, `${gh.base_url}/login/oauth/authorize`);
  t.equal(authz.searchParams.get('scope'), 'read:user user:email');
  t.notOk(authz.searchParams.get('nonce'), 'no nonce outside OIDC');
  const back = await followAuthorization(start.body.data.authorization_url, redirect('github'));
  const created = await callback(app, 'github', { code: back.searchParams.get('code'), state: back.searchParams.get('state') });
  t.equal(created.status, 201, JSON.stringify(created.body));
  const profile = await call(app, 'GET', '/v1/account/profile', { token: created.body.data.access_token });
  t.match(profile.body.data, { email: 'octo@gh.test', email_verified: true, has_password: false }, 'the primary verified e-mail');
  const ids = await call(app, 'GET', '/v1/account/identities', { token: created.body.data.access_token });
  t.match(ids.body.data.identities, [{ provider: 'github', kind: 'github', subject: '583231' }]);

  const again = await signIn(app, 'github', 'octo');
  t.equal((await callback(app, 'github', { ...again, code: `${again.code}x` })).body.error.details.provider_error, 'bad_verification_code', 'GitHub\'s 200-with-error refusal is read as a refusal');

  gh.state.login = 'nope';
  const unverified = await callback(app, 'github', await signIn(app, 'github', 'nope'));
  t.equal(unverified.status, 201);
  t.match((await call(app, 'GET', '/v1/account/profile', { token: unverified.body.data.access_token })).body.data, { email: 'nv@gh.test', email_verified: false });

  gh.state.login = 'octo';
  const refused = await callback(app, 'gh-wrong', await signIn(app, 'gh-wrong', 'octo'));
  t.equal(refused.status, 400);
  t.match(refused.body.error, { code: 'AUTH_OAUTH_STATE_INVALID', details: { provider_error: 'incorrect_client_credentials' } });
});

t.test('an unreachable provider is 503 UNAVAILABLE, and configuration refuses plain http unless allowed', async (t) => {
  const { loadConfig } = await import('../config/index.js');
  const p = { id: 'x', name: 'X', kind: 'oidc', issuer: 'http://127.0.0.1:9', client_id: 'c', client_secret: 's' };
  t.throws(() => loadConfig({ VANTAGE_OIDC_PROVIDERS: JSON.stringify([p]) }), /allow_http/);
  t.throws(() => loadConfig({ VANTAGE_OIDC_PROVIDERS: '[{' }), /VANTAGE_OIDC_PROVIDERS/);
  t.throws(() => loadConfig({ VANTAGE_OIDC_PROVIDERS: JSON.stringify([{ ...p, allow_http: true }, { ...p, allow_http: true }]) }), /unique/);
  const parsed = loadConfig({ VANTAGE_OIDC_PROVIDERS: JSON.stringify([{ ...p, allow_http: true }, { id: 'gh', kind: 'github', client_id: 'c', client_secret: 's' }]) });
  t.match(parsed.oidc_providers, [{ id: 'x', scopes: ['openid', 'email', 'profile'] }, { id: 'gh', name: 'GitHub', base_url: 'https://github.com', api_url: 'https://api.github.com' }]);

  const { app } = await testApp(t, { config: { oidc_providers: JSON.stringify([{ ...p, allow_http: true }]) as never } });
  const res = await call(app, 'POST', '/v1/auth/oauth/x/start');
  t.equal(res.status, 503);
  t.equal(res.body.error.code, 'UNAVAILABLE');
  t.notMatch(JSON.stringify(res.body), /"s"|client_secret/);
});

t.test('an account with two-factor authentication: its code with the callback, or a second step', async (t) => {
  const { app } = await setup(t, { ivy: { email: 'ivy@corp.test', email_verified: true } });
  const u = await registerUser(app);
  const linked = await call(app, 'POST', '/v1/account/identities/corp/callback', { token: u.access_token, body: await signIn(app, 'corp', 'ivy', u.access_token) });
  t.equal(linked.status, 201);
  const secret: string = (await call(app, 'POST', '/v1/account/2fa/setup', { token: u.access_token })).body.data.secret;
  t.equal((await call(app, 'POST', '/v1/account/2fa/enable', { token: u.access_token, body: { code: currentTotp(secret) } })).status, 200);

  const bare = await callback(app, 'corp', await signIn(app, 'corp', 'ivy'));
  t.equal(bare.status, 401);
  t.equal(bare.body.error.code, 'AUTH_2FA_REQUIRED');
  t.match(bare.body.error.details, { mfa_token: /^mfa_/, expires_in_s: 300 }, 'with a token for the second step');
  const wrong = await callback(app, 'corp', { ...(await signIn(app, 'corp', 'ivy')), otp: currentTotp(secret) === '123456' ? '654321' : '123456' });
  t.equal(wrong.body.error.code, 'AUTH_2FA_INVALID');
  const viaRedirect = await call(app, 'GET', `/v1/auth/oauth/corp/callback?${new URLSearchParams(await signIn(app, 'corp', 'ivy'))}`);
  t.equal(viaRedirect.body.error.code, 'AUTH_2FA_REQUIRED', 'the redirect alone carries no code');
  const good = await callback(app, 'corp', { ...(await signIn(app, 'corp', 'ivy')), otp: currentTotp(secret) });
  t.equal(good.status, 200, JSON.stringify(good.body));
  t.equal(good.body.data.user_id, u.user_id);
});

t.test('the second step POST /v1/auth/oauth/2fa: single use, bound to the account, a few tries, short-lived', async (t) => {
  const { app, sql } = await setup(t, { ivy: { email: 'ivy@corp.test', email_verified: true } });
  const u = await registerUser(app);
  t.equal((await call(app, 'POST', '/v1/account/identities/corp/callback', { token: u.access_token, body: await signIn(app, 'corp', 'ivy', u.access_token) })).status, 201);
  const secret: string = (await call(app, 'POST', '/v1/account/2fa/setup', { token: u.access_token })).body.data.secret;
  const enabled = await call(app, 'POST', '/v1/account/2fa/enable', { token: u.access_token, body: { code: currentTotp(secret) } });
  const recovery: string[] = enabled.body.data.recovery_codes;
  const wrongCode = () => (currentTotp(secret) === '123456' ? '654321' : '123456');
  const second = (body: Record<string, unknown>) => call(app, 'POST', '/v1/auth/oauth/2fa', { body });
  /** A sign-in without a code: the second-step token of its 401. */
  const mfaToken = async (): Promise<string> => {
    const res = await callback(app, 'corp', await signIn(app, 'corp', 'ivy'));
    t.equal(res.body.error?.code, 'AUTH_2FA_REQUIRED');
    return res.body.error.details.mfa_token;
  };

  const token = await mfaToken();
  t.same(await sql`SELECT 1 FROM oauth_mfa_tokens WHERE token_hash = ${token}`, [], 'never stored in the clear');
  t.same((await sql`SELECT user_id FROM oauth_mfa_tokens WHERE token_hash = ${hashSecret(token)}`).map((r) => r.user_id), [u.user_id], 'its hash, bound to the account');
  t.equal((await second({ mfa_token: token })).body.error.code, 'VALIDATION_FAILED', 'no code: 400');
  t.equal((await second({ mfa_token: 'nope', otp: currentTotp(secret) })).body.error.code, 'VALIDATION_FAILED', 'not a token: 400');
  const wrong = await second({ mfa_token: token, otp: wrongCode() });
  t.equal(wrong.status, 401);
  t.equal(wrong.body.error.code, 'AUTH_2FA_INVALID', 'a wrong code');
  const good = await second({ mfa_token: token, otp: currentTotp(secret) });
  t.equal(good.status, 200, 'the token still serves after one wrong code');
  t.equal(good.body.data.user_id, u.user_id);
  t.same(good.body.meta, { created: false });
  t.equal((await call(app, 'GET', '/v1/account/identities', { token: good.body.data.access_token })).status, 200, 'a working session');
  const again = await second({ mfa_token: token, otp: currentTotp(secret) });
  t.equal(again.status, 401);
  t.equal(again.body.error.code, 'AUTH_SESSION_INVALID', 'used: never twice');

  const viaRecovery = await second({ mfa_token: await mfaToken(), recovery_code: recovery[0]! });
  t.equal(viaRecovery.status, 200, 'a recovery code instead of the TOTP code');
  t.equal((await second({ mfa_token: await mfaToken(), otp: recovery[0]! })).body.error.code, 'AUTH_2FA_INVALID', 'which works once');
  t.equal((await second({ mfa_token: await mfaToken(), otp: recovery[1]! })).status, 200, 'a recovery code in otp too');

  const tried = await mfaToken();
  for (let i = 0; i < 5; i++) t.equal((await second({ mfa_token: tried, otp: wrongCode() })).body.error.code, 'AUTH_2FA_INVALID', `wrong code ${i + 1}`);
  t.equal((await second({ mfa_token: tried, otp: currentTotp(secret) })).body.error.code, 'AUTH_SESSION_INVALID', 'after five wrong codes the token is spent');

  const late = await mfaToken();
  await sql`UPDATE oauth_mfa_tokens SET expires_at = now() - interval '1 second' WHERE token_hash = ${hashSecret(late)}`;
  t.equal((await second({ mfa_token: late, otp: currentTotp(secret) })).body.error.code, 'AUTH_SESSION_INVALID', 'expired');

  const redirected = await call(app, 'GET', `/v1/auth/oauth/corp/callback?${new URLSearchParams(await signIn(app, 'corp', 'ivy'))}`);
  t.equal(redirected.body.error.code, 'AUTH_2FA_REQUIRED');
  t.equal((await second({ mfa_token: redirected.body.error.details.mfa_token, otp: currentTotp(secret) })).status, 200, 'the redirect callback hands out a token too');

  const before = await mfaToken();
  await sql`UPDATE users SET status = 'disabled' WHERE id = ${u.user_id}`;
  const disabled = await second({ mfa_token: before, otp: currentTotp(secret) });
  t.equal(disabled.status, 403);
  t.equal(disabled.body.error.code, 'AUTH_ACCOUNT_DISABLED', 'an account disabled between the steps gets no session');
});
