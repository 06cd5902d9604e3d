import { mkdirSync } from 'node:fs';
import t from 'tap';
import { startGithubStandIn } from '../../control-plane/src/accounts/oidc-test-servers.js';
import { call, registerUser, testApp } from '../../control-plane/src/test-support/app.js';
import { check, DIST, ensureBuilt, loginInBrowser, openBrowser, SHOTS, skip } from './browser-kit.js';

// Linking a sign-in provider from the console's Security page in Chromium, against a real control
// plane on real Postgres and the loopback server answering GitHub's documented OAuth endpoints:
// the page starts the link flow, the browser goes to the provider and back through the API's
// redirect URI, which hands it to /security/link; that page completes the link with the session.

t.test('console in Chromium: link a sign-in provider, see it listed, unlink it', { skip }, async (t) => {
  ensureBuilt();
  mkdirSync(SHOTS, { recursive: true });
  const gh = await startGithubStandIn(t, {
    octo: { id: 583231, login: 'octocat', email: null, emails: [{ email: 'octo@gh.test', primary: true, verified: true }] },
  });
  gh.state.login = 'octo';
  const github = { id: 'github', kind: 'github', client_id: gh.client_id, client_secret: gh.client_secret, base_url: gh.base_url, api_url: gh.api_url, allow_http: true };
  const { app, deps, url } = await testApp(t, { config: { console_dir: DIST, oidc_providers: JSON.stringify([github]) as never } });
  const origin = `http://localhost:${new URL(url).port}`;
  deps.config.public_url = origin;
  await registerUser(app); // the deployment's first account (its administrator)
  const user = await registerUser(app);
  const { page, problems } = await openBrowser(t);
  await loginInBrowser(page, origin, user.email, user.password);

  await page.goto(`${origin}/security`);
  await page.getByText('No provider is linked yet.').waitFor({ timeout: 30_000 });
  const link = page.getByRole('button', { name: 'Link GitHub', exact: true });
  await link.waitFor({ timeout: 30_000 });
  await check(t, page, 'security-identities');

  // The button goes to the provider, which signs octocat in and comes back to the API's redirect
  // URI; the API sends the browser on to /security/link, where the page completes the link.
  await link.focus();
  await page.keyboard.press('Enter');
  await page.waitForURL('**/security/link?provider=github', { timeout: 30_000 });
  await page.getByText('GitHub is linked: it now logs in to this account.').waitFor({ timeout: 30_000 }).catch(async (err: Error) => {
    throw new Error(`${err.message}; the page says: ${await page.locator('main').innerText()}`);
  });
  t.equal(new URL(page.url()).hash, '', 'the code and state are gone from the address bar');
  t.equal(gh.state.token_requests, 1, 'the code was exchanged once');
  await check(t, page, 'security-link-done');
  await page.getByLabel('Theme').selectOption('dark');
  await check(t, page, 'security-link-done-dark');
  await page.getByLabel('Language').selectOption('tw');
  await page.getByText('已連結 GitHub：現在可以用它登入此帳戶。').waitFor({ timeout: 30_000 });
  await page.getByLabel('語言').selectOption('en');
  await page.getByLabel('Theme').selectOption('system');

  const listed = await call(app, 'GET', '/v1/account/identities', { token: user.access_token });
  t.match(listed.body.data.identities, [{ provider: 'github', kind: 'github', subject: '583231', email: 'octo@gh.test' }], 'the API lists the identity linked through the console');
  await page.getByRole('link', { name: 'Back to Security' }).click();
  await page.getByRole('cell', { name: 'octo@gh.test', exact: true }).waitFor({ timeout: 30_000 });
  t.equal(await page.getByRole('button', { name: 'Link GitHub', exact: true }).count(), 0, 'no link button for a linked provider');

  // A sign-in with the provider now opens this account.
  const started = await call(app, 'POST', '/v1/auth/oauth/github/start');
  const back = await fetch(started.body.data.authorization_url, { redirect: 'manual' });
  const redirect = new URL(back.headers.get('location')!);
  const login = await call(app, 'GET', `/v1/auth/oauth/github/callback${redirect.search}`);
  t.equal(login.body.data?.user_id, user.user_id, 'the linked identity logs in to the account');

  // Opening the finishing page again, or with an answer this tab did not ask for, sends nothing.
  await page.goto(`${origin}/security/link?provider=github#code=forged&state=not-started-here`);
  await page.getByText('This link was not started in this browser tab', { exact: false }).waitFor({ timeout: 30_000 });
  await check(t, page, 'security-link-not-started');

  // Unlink: the account has a password, so the API lets it go.
  await page.goto(`${origin}/security`);
  await page.getByRole('button', { name: 'Unlink GitHub' }).click();
  await page.getByText('No provider is linked yet.').waitFor({ timeout: 30_000 });
  await page.getByRole('button', { name: 'Link GitHub', exact: true }).waitFor({ timeout: 30_000 });
  t.same((await call(app, 'GET', '/v1/account/identities', { token: user.access_token })).body.data.identities, [], 'gone through the API too');
  t.same(problems, [], 'no script errors or CSP violations');
});
