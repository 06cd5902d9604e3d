import { mkdirSync } from 'node:fs';
import t from 'tap';
import { call, registerUser, testApp } from '../../control-plane/src/test-support/app.js';
import { check, DIST, ensureBuilt, loginInBrowser, openBrowser, SHOTS, skip } from './browser-kit.js';

// A status page's subscribers on its page in Chromium, against a real control plane on real
// Postgres: the empty state, then visitors subscribed through the public API (an e-mail address,
// pending; a webhook, confirmed), listed newest first and filtered by state, one removed (the
// confirmation accepted) and seen gone through the API. axe on each state, the list also in the
// dark theme; screenshots to .tap/console/.

t.test('console in Chromium: a status page\'s subscribers', { skip }, async (t) => {
  ensureBuilt();
  mkdirSync(SHOTS, { recursive: true });
  const { app, url } = await testApp(t, { config: { console_dir: DIST, delivery_allow_cidrs: ['127.0.0.0/8'] } });
  const user = await registerUser(app);
  const api = async (method: string, path: string, body?: unknown) => (await call(app, method, path, { token: user.access_token, ...(body ? { body } : {}) })).body;
  const sp = (await api('POST', '/v1/status-pages', { slug: 'subs-page', title: 'Subs page' })).data;
  t.ok(sp?.id, 'a status page');
  const { page, problems } = await openBrowser(t);
  await loginInBrowser(page, url, user.email, user.password);

  await page.goto(`${url}/status-pages/${sp.id}`);
  await page.getByRole('heading', { name: 'Subscribers' }).waitFor({ timeout: 30_000 });
  await page.getByText('Nobody has subscribed yet').waitFor({ timeout: 30_000 });
  await page.getByRole('heading', { name: 'Subscribers' }).scrollIntoViewIfNeeded();
  await check(t, page, 'status-page-subscribers-empty');

  for (const body of [{ email: 'Ops@Example.test' }, { webhook_url: 'http://127.0.0.1:9/hook' }]) {
    const r = await call(app, 'POST', '/v1/public/status-pages/subs-page/subscribers', { body });
    t.equal(r.status, 202, JSON.stringify(r.body));
  }
  await page.reload();
  const table = page.getByTestId('sp-subscribers');
  await table.waitFor({ timeout: 30_000 });
  const rows = async () => (await table.locator('tbody tr').allInnerTexts()).map((r) => r.split('\t').slice(0, 3).join(' | '));
  t.same(await rows(), ['Webhook | http://127.0.0.1:9/hook | Confirmed', 'E-mail | ops@example.test | Waiting for confirmation'], 'newest first, kind, address and state');
  t.notOk((await table.innerText()).includes('whsec_'), 'no secret shown');
  await table.scrollIntoViewIfNeeded();
  await check(t, page, 'status-page-subscribers');

  await page.getByLabel('State').selectOption('pending');
  await page.getByText('Webhook', { exact: true }).waitFor({ state: 'detached', timeout: 30_000 });
  t.same(await rows(), ['E-mail | ops@example.test | Waiting for confirmation'], 'filtered by state');
  await page.getByLabel('State').selectOption('unsubscribed');
  await page.getByText('No subscriber in this state.').waitFor({ timeout: 30_000 });
  await page.getByLabel('State').selectOption('');
  await table.waitFor({ timeout: 30_000 });

  // Removed by keyboard (the confirmation dialog is accepted by the test's browser).
  await page.getByRole('button', { name: 'Remove http://127.0.0.1:9/hook' }).focus();
  await page.keyboard.press('Enter');
  await page.getByText('http://127.0.0.1:9/hook').waitFor({ state: 'detached', timeout: 30_000 });
  const left = (await api('GET', `/v1/status-pages/${sp.id}/subscribers`)).data;
  t.match(left, { total: 1, items: [{ kind: 'email', address: 'ops@example.test' }] }, 'the API has it removed');

  await page.getByLabel('Theme').first().selectOption('dark'); // the console's (the page's own theme field comes second)
  await table.scrollIntoViewIfNeeded();
  await check(t, page, 'status-page-subscribers-dark');
  t.same(problems, [], 'no script error or CSP violation');
});
