import { mkdirSync } from 'node:fs';
import t from 'tap';
import { callerAs, registerUser, testApp } from '../../control-plane/src/test-support/app.js';
import { check, DIST, ensureBuilt, loginInBrowser, openBrowser, SHOTS, skip } from './browser-kit.js';

// Administrators' billing actions in Chromium against a real control plane on real Postgres with
// the manual payment provider: a plain account sees no administration tab and is told the page is
// not for it; the administrator marks the payer's open invoice paid from the page (an unknown
// number and a second try refused as the API says), grants the payer a quota increase and an API
// call pack, and revokes the pack. Each step read back through the API (the invoice, the
// subscription, the payer's quotas and entitlements); axe on every page, also dark and in Chinese.

t.setTimeout(300_000);

t.test('console in Chromium: administrators\' billing actions', { skip }, async (t) => {
  ensureBuilt();
  mkdirSync(SHOTS, { recursive: true });
  const { app, url } = await testApp(t, { config: { console_dir: DIST, plan: 'free' } });
  const admin = await registerUser(app, 'root@example.test');
  const payer = await registerUser(app, 'payer@example.test');
  const api = callerAs(app, payer.access_token);
  const root = callerAs(app, admin.access_token);
  const { checkout_url } = await api('POST', '/v1/billing/subscribe', { plan: 'pro' });
  const invoice_id = new URL(checkout_url, url).pathname.split('/').pop()!;

  // The payer: no administration tab; the page says it is not for it (and asks nothing of /v1/admin).
  const { page, problems } = await openBrowser(t);
  await loginInBrowser(page, url, payer.email, payer.password);
  await page.getByRole('link', { name: 'Billing', exact: true }).click();
  await page.getByRole('link', { name: 'Entitlements', exact: true }).waitFor({ timeout: 30_000 });
  t.equal(await page.getByRole('link', { name: 'Administration', exact: true }).count(), 0, 'no administration tab');
  await page.goto(`${url}/billing/admin`);
  await page.getByText('These actions are for this deployment’s administrators.').waitFor({ timeout: 30_000 });
  t.equal(await page.getByRole('button', { name: 'Mark paid' }).count(), 0, 'no actions');
  await check(t, page, 'billing-admin-refused');
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.waitForURL('**/login', { timeout: 30_000 });

  // The administrator: mark the invoice paid (an unknown number refused first).
  await loginInBrowser(page, url, admin.email, admin.password);
  await page.getByRole('link', { name: 'Billing', exact: true }).click();
  await page.getByRole('link', { name: 'Administration', exact: true }).click();
  await page.getByRole('heading', { name: 'Mark an invoice paid' }).waitFor({ timeout: 30_000 });
  await page.getByLabel('Invoice number').fill('bi_00000000000000000000000000');
  await page.getByRole('button', { name: 'Mark paid' }).click();
  await page.locator('#paid-error').waitFor({ timeout: 30_000 });
  await page.getByLabel('Invoice number').fill(invoice_id);
  await page.getByRole('button', { name: 'Mark paid' }).click();
  await page.getByText(`Invoice ${invoice_id} is paid ($19.00).`).waitFor({ timeout: 30_000 });
  t.match(await api('GET', `/v1/billing/invoices/${invoice_id}`), { status: 'paid' }, 'the invoice is paid');
  t.match(await api('GET', '/v1/billing/subscription'), { plan: 'pro', status: 'active' }, 'and the subscription started');
  await page.getByLabel('Invoice number').fill(invoice_id);
  await page.getByRole('button', { name: 'Mark paid' }).click();
  await page.locator('#paid-error').waitFor({ timeout: 30_000 });
  t.notOk(await page.getByText(`Invoice ${invoice_id} is paid`).count(), 'a paid invoice is not paid twice');

  // Grant the payer a quota increase and an API call pack; revoke the pack.
  const monitorsBefore = (await api('GET', '/v1/billing/usage')).quotas.monitors;
  await page.getByLabel('Account').selectOption({ label: payer.email });
  await page.getByRole('heading', { name: `Grant ${payer.email} an entitlement` }).waitFor({ timeout: 30_000 });
  await page.getByText('None yet.').waitFor({ timeout: 30_000 });
  await page.getByLabel('Monitors').fill('5');
  await page.getByRole('button', { name: 'Grant', exact: true }).click();
  await page.getByText(`Granted: Quota increase to ${payer.email}.`).waitFor({ timeout: 30_000 });
  await page.getByRole('cell', { name: 'monitors +5' }).waitFor({ timeout: 30_000 });
  t.equal((await api('GET', '/v1/billing/usage')).quotas.monitors, monitorsBefore + 5, 'the payer\'s monitors quota grew by 5');
  await page.getByLabel('Kind').selectOption('api_pack');
  await page.getByLabel('API calls').fill('100');
  await page.getByLabel('Order reference').fill('order-7');
  await page.getByRole('button', { name: 'Grant', exact: true }).click();
  await page.getByRole('cell', { name: '100 API calls left' }).waitFor({ timeout: 30_000 });
  const granted = await root('GET', `/v1/admin/entitlements?user_id=${payer.user_id}`);
  t.match(granted, [{ kind: 'api_pack', balance: 100, order_ref: 'order-7', status: 'active', source: 'admin' }, { kind: 'quota_override', attrs: { monitors: 5 } }], 'both, newest first');
  await check(t, page, 'billing-admin');
  await page.getByLabel('Theme').selectOption('dark');
  await check(t, page, 'billing-admin-dark');
  await page.getByLabel('Theme').selectOption('system');
  await page.getByRole('button', { name: /^Revoke the API call pack granted/ }).click();
  await page.getByRole('row', { name: /API call pack.*Revoked/ }).waitFor({ timeout: 30_000 });
  t.match(await api('GET', '/v1/entitlements'), [{ kind: 'api_pack', status: 'revoked' }, { kind: 'quota_override', status: 'active' }], 'the pack revoked, as the payer sees it');
  await page.getByLabel('Language').selectOption('cn');
  await page.getByRole('heading', { name: '将账单标记为已付' }).waitFor({ timeout: 30_000 });
  await check(t, page, 'billing-admin-cn');
  await page.getByLabel('语言').selectOption('en');
  t.same(problems, [
    'Failed to load resource: the server responded with a status of 404 (Not Found)',
    'Failed to load resource: the server responded with a status of 409 (Conflict)',
  ], 'no script error or CSP violation (but the refusals the test provoked)');
});
