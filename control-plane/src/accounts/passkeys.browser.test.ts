import { existsSync } from 'node:fs';
import t from 'tap';
import { chromium, type BrowserContext, type CDPSession, type Page } from 'playwright-core';
import { call, registerUser, testApp } from '../test-support/app.js';

// Passkeys end to end through a real browser: Chromium's WebAuthn API against the DevTools
// virtual authenticators (CTAP2, internal transport, resident keys, user verification), so every
// credential and assertion is made by the browser, none by hand.

// Browser globals of the code run in the page (page.evaluate); the project compiles without the DOM library.
declare const navigator: { credentials: { create(o: unknown): Promise<unknown>; get(o: unknown): Promise<unknown> } };
declare const PublicKeyCredential: { parseCreationOptionsFromJSON(o: unknown): unknown; parseRequestOptionsFromJSON(o: unknown): unknown };
declare const window: { isSecureContext: boolean };
type BrowserCredential = { toJSON(): unknown };

/** The Chromium the tests drive (VANTAGE_CHROMIUM, default Debian's /usr/bin/chromium). */
const CHROMIUM_PATH = process.env.VANTAGE_CHROMIUM ?? '/usr/bin/chromium';
const skip = existsSync(CHROMIUM_PATH) ? false : `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set VANTAGE_CHROMIUM)`;

/** One ceremony run in the page: the options route's answer, the browser's credential, the finishing route's answer. */
interface Ceremony { options: any; credential: any; status: number; body: any; error?: string; message?: string }

/** Register a passkey named `name` from the page: options, navigator.credentials.create, POST /v1/account/passkeys. */
async function registerInPage(page: Page, token: string, name: string): Promise<Ceremony> {
  await page.bringToFront(); // WebAuthn ceremonies need the focused page
  return page.evaluate(async ({ token, name }) => {
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    const options = ((await (await fetch('/v1/account/passkeys/options', { method: 'POST', headers })).json()) as any).data;
    let credential: any;
    try {
      const created = await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options.options) }) as BrowserCredential;
      credential = created.toJSON();
    } catch (err) {
      return { options, credential: null, status: 0, body: null, error: (err as Error).name, message: (err as Error).message };
    }
    const res = await fetch('/v1/account/passkeys', { method: 'POST', headers, body: JSON.stringify({ challenge_id: options.challenge_id, name, credential }) });
    return { options, credential, status: res.status, body: await res.json() };
  }, { token, name });
}

/** Log in from the page: options (with `email` when given), navigator.credentials.get, POST /v1/auth/passkeys/login. */
async function loginInPage(page: Page, email?: string): Promise<Ceremony> {
  await page.bringToFront();
  return page.evaluate(async ({ email }) => {
    const headers = { 'content-type': 'application/json' };
    const options = ((await (await fetch('/v1/auth/passkeys/options', { method: 'POST', headers, body: JSON.stringify(email ? { email } : {}) })).json()) as any).data;
    let credential: any;
    try {
      const got = await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options.options) }) as BrowserCredential;
      credential = got.toJSON();
    } catch (err) {
      return { options, credential: null, status: 0, body: null, error: (err as Error).name, message: (err as Error).message };
    }
    const res = await fetch('/v1/auth/passkeys/login', { method: 'POST', headers, body: JSON.stringify({ challenge_id: options.challenge_id, credential }) });
    return { options, credential, status: res.status, body: await res.json() };
  }, { email });
}

/** A device: a page of its own with one virtual platform authenticator (Chrome allows one internal authenticator per page). */
interface Device { page: Page; cdp: CDPSession; authenticator: string }

/** Open `http://localhost:<port>/v1/openapi.json` (any page of the origin will do) in a new page with a user-verifying platform authenticator. */
async function device(context: BrowserContext, origin: string): Promise<Device> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  await page.goto(`${origin}/v1/openapi.json`);
  return { page, cdp, authenticator: authenticatorId };
}

t.test('passkeys in Chromium: register two, log in, refuse replays and a rolled-back counter, delete one', { skip }, async (t) => {
  const { app, deps, sql, url } = await testApp(t);
  const port = new URL(url).port;
  // The page's origin: an IP address is no valid RP id (WebAuthn Level 3 §5.1.3), localhost is,
  // and the port is known only now, so the public URL is set as testApp sets config.port.
  deps.config.public_url = `http://localhost:${port}`;
  const admin = await registerUser(app); // the deployment's first account: its administrator
  const user = await registerUser(app);
  const other = await registerUser(app);

  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--disable-gpu', '--no-first-run'] });
  t.teardown(() => browser.close());
  const context = await browser.newContext();
  const laptop = await device(context, `http://localhost:${port}`);
  const phone = await device(context, `http://localhost:${port}`);
  t.equal(await laptop.page.evaluate(() => window.isSecureContext), true, 'http://localhost is a secure context');

  // Two passkeys, one per device.
  const first = await registerInPage(laptop.page, user.access_token, 'Laptop');
  t.equal(first.status, 201, `first registration: ${JSON.stringify(first.body ?? first.message)}`);
  t.match(first.body.data, { id: /^pk_/, name: 'Laptop', device_type: 'singleDevice', transports: ['internal'], last_used_at: null });
  const second = await registerInPage(phone.page, user.access_token, 'Phone');
  t.equal(second.status, 201, `second registration: ${JSON.stringify(second.body ?? second.error)}`);
  t.same(second.options.options.excludeCredentials.map((c: { id: string }) => c.id), [first.credential.id], 'the second ceremony excludes the first passkey');
  const again = await registerInPage(phone.page, user.access_token, 'Phone again');
  t.equal(again.error, 'InvalidStateError', 'the browser refuses to register an authenticator twice (excludeCredentials)');

  const list = await call(app, 'GET', '/v1/account/passkeys', { token: user.access_token });
  t.same(list.body.data.map((p: { name: string }) => p.name), ['Laptop', 'Phone'], 'both listed, oldest first');
  t.notOk(JSON.stringify(list.body.data).includes('public_key'), 'never the public key');

  // Replays of a real registration credential.
  const replay = await call(app, 'POST', '/v1/account/passkeys', { token: user.access_token, body: { challenge_id: first.options.challenge_id, name: 'Replay', credential: first.credential } });
  t.equal(replay.body.error?.code, 'AUTH_WEBAUTHN_CHALLENGE_INVALID', 'a used registration challenge');
  const fresh = (await call(app, 'POST', '/v1/account/passkeys/options', { token: user.access_token })).body.data;
  const moved = await call(app, 'POST', '/v1/account/passkeys', { token: user.access_token, body: { challenge_id: fresh.challenge_id, name: 'Replay', credential: first.credential } });
  t.equal(moved.body.error?.code, 'AUTH_WEBAUTHN_CHALLENGE_INVALID', 'a credential signed over another challenge');

  // Log in with the laptop's passkey, discoverable (no e-mail).
  const login = await loginInPage(laptop.page);
  t.equal(login.status, 200, `login: ${JSON.stringify(login.body ?? login.error)}`);
  t.equal(login.body.data.user_id, user.user_id);
  t.match(login.body.data, { token_type: 'Bearer', expires_in: 900, refresh_token: /^rt_/ });
  t.equal(login.options.options.allowCredentials, undefined, 'discoverable: no allowCredentials');
  const profile = await call(app, 'GET', '/v1/account/profile', { token: login.body.data.access_token });
  t.equal(profile.body.data.email, user.email, 'the access token works');
  const [used] = await sql<{ sign_count: string; last_used_at: Date | null }[]>`SELECT sign_count, last_used_at FROM passkeys WHERE id = ${first.body.data.id}`;
  t.ok(Number(used!.sign_count) > 0, 'sign_count recorded');
  const listed = (await call(app, 'GET', '/v1/account/passkeys', { token: user.access_token })).body.data;
  t.ok(listed[0].last_used_at, 'last_used_at set on the one used');
  t.equal(listed[1].last_used_at, null, 'not on the other');

  // Replays of a real assertion.
  const replayed = await call(app, 'POST', '/v1/auth/passkeys/login', { body: { challenge_id: login.options.challenge_id, credential: login.credential } });
  t.equal(replayed.body.error?.code, 'AUTH_WEBAUTHN_CHALLENGE_INVALID', 'a used login challenge');
  const freshLogin = (await call(app, 'POST', '/v1/auth/passkeys/options', { body: {} })).body.data;
  const moved2 = await call(app, 'POST', '/v1/auth/passkeys/login', { body: { challenge_id: freshLogin.challenge_id, credential: login.credential } });
  t.equal(moved2.body.error?.code, 'AUTH_WEBAUTHN_CHALLENGE_INVALID', 'an assertion signed over another challenge');

  // With the e-mail: the options list the account's passkeys.
  const byEmail = await loginInPage(laptop.page, user.email);
  t.equal(byEmail.status, 200, `login by e-mail: ${JSON.stringify(byEmail.body ?? byEmail.error)}`);
  t.same(byEmail.options.options.allowCredentials.map((c: { id: string }) => c.id).sort(), [first.credential.id, second.credential.id].sort());
  const wrongAccount = await loginInPage(laptop.page, other.email);
  t.equal(wrongAccount.body?.error?.code, 'AUTH_CREDENTIALS_INVALID', "a passkey of another account than the e-mail's");

  // A disabled account cannot log in, as with a password.
  t.equal((await call(app, 'PATCH', `/v1/admin/accounts/${user.user_id}`, { token: admin.access_token, body: { status: 'disabled' } })).status, 200);
  const disabled = await loginInPage(laptop.page);
  t.equal(disabled.status, 403);
  t.equal(disabled.body.error.code, 'AUTH_ACCOUNT_DISABLED');
  t.equal((await call(app, 'PATCH', `/v1/admin/accounts/${user.user_id}`, { token: admin.access_token, body: { status: 'active' } })).status, 200);
  // Disabling ended the account's sessions: a new one, with the phone's passkey.
  const relogin = await loginInPage(phone.page);
  t.equal(relogin.status, 200, 'enabled again: the passkey logs in');
  const token = relogin.body.data.access_token as string;

  // The laptop's key put back with its counter at 0 (a cloned or rolled-back authenticator).
  const { credentials } = await laptop.cdp.send('WebAuthn.getCredentials', { authenticatorId: laptop.authenticator });
  t.equal(credentials.length, 1);
  await laptop.cdp.send('WebAuthn.removeCredential', { authenticatorId: laptop.authenticator, credentialId: credentials[0]!.credentialId });
  await laptop.cdp.send('WebAuthn.addCredential', { authenticatorId: laptop.authenticator, credential: { ...credentials[0]!, signCount: 0 } });
  const stored = Number((await sql<{ sign_count: string }[]>`SELECT sign_count FROM passkeys WHERE id = ${first.body.data.id}`)[0]!.sign_count);
  const rolledBack = await loginInPage(laptop.page);
  t.equal(rolledBack.status, 401, 'a counter going backwards');
  t.equal(rolledBack.body.error.code, 'AUTH_CREDENTIALS_INVALID');
  t.equal(Number((await sql<{ sign_count: string }[]>`SELECT sign_count FROM passkeys WHERE id = ${first.body.data.id}`)[0]!.sign_count), stored, 'the stored counter kept');

  // Another account cannot touch the passkeys; their owner deletes one, which then logs in no more.
  t.equal((await call(app, 'DELETE', `/v1/account/passkeys/${second.body.data.id}`, { token: other.access_token })).status, 404, "another account's passkey: 404");
  t.equal((await call(app, 'PATCH', `/v1/account/passkeys/${second.body.data.id}`, { token: other.access_token, body: { name: 'x' } })).status, 404);
  const renamed = await call(app, 'PATCH', `/v1/account/passkeys/${second.body.data.id}`, { token, body: { name: 'Old phone' } });
  t.equal(renamed.body.data.name, 'Old phone');
  t.equal((await call(app, 'DELETE', `/v1/account/passkeys/${second.body.data.id}`, { token })).status, 200);
  t.same((await call(app, 'GET', '/v1/account/passkeys', { token })).body.data.map((p: { name: string }) => p.name), ['Laptop']);
  const deleted = await loginInPage(phone.page);
  t.equal(deleted.status, 401, 'the deleted passkey no longer logs in');
  t.equal(deleted.body.error.code, 'AUTH_CREDENTIALS_INVALID');
});
