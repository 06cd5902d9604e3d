import { mkdirSync } from 'node:fs';
import t from 'tap';
import { currentTotp } from '../../control-plane/src/accounts/totp.js';
import { call, registerUser, testApp } from '../../control-plane/src/test-support/app.js';
import { check, DIST, ensureBuilt, loginInBrowser, openBrowser, SHOTS, skip } from './browser-kit.js';

// The account security pages of the console in Chromium against a real control plane on real
// Postgres: a passkey made by Chromium's DevTools WebAuthn virtual authenticator through the page
// and removed, an authenticator app (TOTP) turned on with its recovery codes shown once, and a
// QR-code login a waiting client started, approved on the device page. The console runs at
// http://localhost:<port>: an IP address is no valid WebAuthn RP id, localhost is.

t.test('console in Chromium: passkeys, TOTP and recovery codes, QR-code login approval', { skip }, async (t) => {
  ensureBuilt();
  mkdirSync(SHOTS, { recursive: true });
  const { app, deps, url } = await testApp(t, { config: { console_dir: DIST } });
  const origin = `http://localhost:${new URL(url).port}`;
  deps.config.public_url = origin;
  await registerUser(app); // the deployment's first account (its administrator)
  const user = await registerUser(app);
  const { context, page, problems } = await openBrowser(t);
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  await loginInBrowser(page, origin, user.email, user.password);

  await page.getByRole('link', { name: 'Security', exact: true }).click();
  await page.getByRole('heading', { name: 'Security', exact: true }).waitFor({ timeout: 30_000 });
  await page.getByText('No passkeys yet.').waitFor({ timeout: 30_000 });
  await page.getByText('No provider is linked yet.').waitFor({ timeout: 30_000 });
  await page.getByText('This deployment has no sign-in providers set up.').waitFor({ timeout: 30_000 });
  await check(t, page, 'security');

  // A passkey: the server's options, the virtual authenticator's credential, the list.
  await page.getByLabel('Passkey name').fill('Laptop');
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await page.getByRole('cell', { name: 'Laptop', exact: true }).waitFor({ timeout: 30_000 }).catch(async (err: Error) => {
    throw new Error(`${err.message}; the page says: ${await page.locator('main').innerText()}`);
  });
  const listed = await call(app, 'GET', '/v1/account/passkeys', { token: user.access_token });
  t.match(listed.body.data, [{ id: /^pk_/, name: 'Laptop', transports: ['internal'] }], 'the API lists the passkey made through the page');
  await check(t, page, 'security-passkey');

  // An authenticator app: the secret, a current code, the recovery codes once.
  await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
  const secret = (await page.getByTestId('totp-secret').textContent({ timeout: 30_000 }))!;
  await check(t, page, 'security-totp-setup');
  await page.getByLabel('Authentication code').fill(currentTotp(secret));
  await page.getByRole('button', { name: 'Turn on' }).click();
  await page.getByTestId('recovery-codes').waitFor({ timeout: 30_000 });
  t.equal(await page.getByTestId('recovery-codes').locator('li').count(), 10, 'ten recovery codes shown once');
  await page.getByText('10 unused recovery codes left').waitFor({ timeout: 30_000 });
  const security = await call(app, 'GET', '/v1/account/security', { token: user.access_token });
  t.match(security.body.data, { totp_enabled: true, passkeys: 1, recovery_codes_left: 10 }, 'the API sees TOTP on');

  // Remove the passkey.
  await page.getByRole('button', { name: 'Remove passkey Laptop' }).click();
  await page.getByText('No passkeys yet.').waitFor({ timeout: 30_000 });
  t.same((await call(app, 'GET', '/v1/account/passkeys', { token: user.access_token })).body.data, [], 'the passkey is gone');

  // QR-code login: a waiting client asks, the signed-in console approves, the client gets its session.
  const started = await (await fetch(`${url}/v1/auth/device`, { method: 'POST', headers: { 'user-agent': 'KioskBrowser/1.0' } })).json() as { data: { device_code: string; user_code: string } };
  await page.goto(`${origin}/device?user_code=${started.data.user_code}`);
  await page.getByText('KioskBrowser/1.0').waitFor({ timeout: 30_000 });
  await check(t, page, 'device-login');
  await page.getByRole('button', { name: 'Approve' }).click();
  await page.getByText('Approved: the waiting browser is now signed in.').waitFor({ timeout: 30_000 });
  const token = await call(app, 'POST', '/v1/auth/device/token', { body: { device_code: started.data.device_code } });
  t.equal(token.status, 200, 'the waiting client gets its session');
  t.match(token.body.data, { access_token: /\S/, user_id: user.user_id });
  t.same(problems, [], 'no script errors or CSP violations');
});
