import { mkdirSync } from 'node:fs';
import t from 'tap';
import { callerAs, registerUser, testApp } from '../../control-plane/src/test-support/app.js';
import { check, DIST, ensureBuilt, loginInBrowser, openBrowser, SHOTS, skip } from './browser-kit.js';

// The billing pages in Chromium against a real control plane on real Postgres with the manual
// payment provider: the free plan's quotas used against their limits (a status page made, an
// entitlement's extra monitors counted), a subscription to Pro from the page that follows the
// checkout URL to the console's invoice page, the invoice marked paid by an administrator, the
// plan in force then Pro, canceled from the page; the invoices and entitlements lists, also in
// Chinese. Each step read back through the API; axe-core on every page.

t.setTimeout(300_000);

t.test('console in Chromium: billing', { skip }, async (t) => {
  ensureBuilt();
  mkdirSync(SHOTS, { recursive: true });
  const { app, url } = await testApp(t, { config: { console_dir: DIST, plan: 'free' } });
  const admin = await registerUser(app, 'root@example.test');
  const user = await registerUser(app, 'payer@example.test');
  const api = callerAs(app, user.access_token);
  const root = callerAs(app, admin.access_token);
  await api('POST', '/v1/status-pages', { slug: 'payer-status', title: 'Payer status' });
  await root('POST', '/v1/admin/entitlements', { user_id: user.user_id, kind: 'quota_override', attrs: { monitors: 5 } });
  await root('POST', '/v1/admin/entitlements', { user_id: user.user_id, kind: 'api_pack', balance: 100, order_ref: 'order-42' });
  const usage = await api('GET', '/v1/billing/usage');

  const { page, problems } = await openBrowser(t);
  await loginInBrowser(page, url, user.email, user.password);
  await page.getByRole('link', { name: 'Billing', exact: true }).click();
  await page.getByTestId('plan').getByText('Free').waitFor({ timeout: 30_000 });
  const pages = page.getByRole('meter', { name: 'Status pages' });
  t.equal(await pages.getAttribute('value'), '1', 'one status page used');
  t.equal(await pages.getAttribute('max'), '1', 'of the free plan\'s one');
  t.equal(await page.getByRole('meter', { name: 'Monitors' }).getAttribute('max'), String(usage.quotas.monitors), 'the monitors quota the API gives (with the entitlement)');
  t.equal(usage.quotas.monitors, 25, 'the free plan\'s 20 and the 5 granted');
  await check(t, page, 'billing');

  // Subscribe: the checkout URL is the console's invoice page.
  await page.getByRole('button', { name: 'Subscribe to Pro' }).click();
  await page.waitForURL(/\/billing\/invoices\/bi_/, { timeout: 30_000 });
  const invoice_id = new URL(page.url()).pathname.split('/').pop()!;
  await page.getByTestId('invoice-amount').getByText('$19.00').waitFor({ timeout: 30_000 });
  await page.getByText(`quoting invoice ${invoice_id}`, { exact: false }).waitFor({ timeout: 30_000 });
  t.match(await api('GET', '/v1/billing/subscription'), { plan: 'free', status: 'incomplete', subscribed_plan: 'pro' }, 'the subscription waits for its payment');
  await check(t, page, 'billing-invoice-open');

  // An administrator marks it paid: the invoice, then the plan.
  await root('POST', `/v1/admin/billing/invoices/${invoice_id}/mark-paid`);
  await page.reload();
  await page.getByText('Paid', { exact: true }).first().waitFor({ timeout: 30_000 });
  await page.getByRole('link', { name: 'Plan and quotas' }).click();
  await page.getByTestId('plan').getByText('Pro').waitFor({ timeout: 30_000 });
  await page.getByText('Paid until').waitFor({ timeout: 30_000 });
  t.match(await api('GET', '/v1/billing/subscription'), { plan: 'pro', status: 'active' });
  await page.getByRole('button', { name: 'Cancel subscription' }).click();
  await page.getByText('The subscription is canceled', { exact: false }).waitFor({ timeout: 30_000 });
  t.match(await api('GET', '/v1/billing/subscription'), { plan: 'pro', status: 'canceled' }, 'canceled; the plan stays until the period ends');
  t.equal(await page.getByRole('button', { name: 'Subscribe to Pro' }).count(), 1, 'a canceled subscription can be replaced');

  await page.getByRole('link', { name: 'Invoices', exact: true }).click();
  const row = page.locator('tbody tr').first();
  await row.getByText('Paid', { exact: true }).waitFor({ timeout: 30_000 });
  t.match(await row.innerText(), /\$19\.00/, 'the paid invoice listed');
  await check(t, page, 'billing-invoices');

  await page.getByRole('link', { name: 'Entitlements', exact: true }).click();
  await page.getByText('100 API calls left').waitFor({ timeout: 30_000 });
  t.match(await page.locator('tbody').innerText(), /Quota increase[\s\S]*monitors \+5/, 'the quota override and what it gives');
  await check(t, page, 'billing-entitlements');
  await page.getByLabel('Language').selectOption('cn');
  await page.getByText('剩余 100 次 API 调用').waitFor({ timeout: 30_000 });
  await check(t, page, 'billing-entitlements-cn');
  await page.getByLabel('语言').selectOption('en');
  t.same(problems, [], 'no script error or CSP violation');
});
