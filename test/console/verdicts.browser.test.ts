import { mkdirSync } from 'node:fs';
import t from 'tap';
import { call, registerUser, testApp } from '../../control-plane/src/test-support/app.js';
import { check, DIST, ensureBuilt, loginInBrowser, openBrowser, SHOTS, skip } from './browser-kit.js';

// The evidence report pages in Chromium against a real control plane on real Postgres: the empty
// list, a report of a monitored target ordered through the form and paid by a charge (its pay
// link is the manual provider's invoice page), a second one paid with a report credit an
// administrator granted (queued at once); the list and the order's page, each read back through
// the API. axe-core on every page.

t.setTimeout(300_000);

t.test('console in Chromium: verdict orders', { skip }, async (t) => {
  ensureBuilt();
  mkdirSync(SHOTS, { recursive: true });
  const { app, url } = await testApp(t, { config: { console_dir: DIST } });
  const admin = await registerUser(app, 'root@example.test');
  const user = await registerUser(app, 'auditor@example.test');
  const api = async (method: string, path: string, body?: unknown) => (await call(app, method, path, { token: user.access_token, body })).body.data;
  t.equal((await call(app, 'POST', '/v1/monitors', { token: user.access_token, body: { name: 'Shop', type: 'http', target: 'https://1.1.1.1/' } })).status, 201);
  const { page, problems } = await openBrowser(t);
  await loginInBrowser(page, url, user.email, user.password);

  await page.getByRole('link', { name: 'Evidence reports', exact: true }).click();
  await page.getByText('No reports ordered yet.', { exact: false }).waitFor({ timeout: 30_000 });
  await check(t, page, 'verdicts-empty');

  // Paid by a charge: the order waits for its payment.
  t.match(await page.getByLabel('Report', { exact: true }).locator('option[value="outage_window"]').textContent(), /\(¥49\)$/, 'the price shown before ordering');
  await page.getByLabel('Report', { exact: true }).selectOption('outage_window');
  await page.getByLabel('Target').fill('https://1.1.1.1/');
  await page.getByLabel('Notes printed on the report').fill('Quarterly review');
  await page.getByLabel('Payment').selectOption('charge');
  await page.getByRole('button', { name: 'Order report' }).click();
  await page.getByText('Ordered (¥49).').waitFor({ timeout: 30_000 });
  const { orders } = await api('GET', '/v1/verdict/orders');
  t.match(orders, [{ template: 'outage_window', target: 'https://1.1.1.1/', notes: 'Quarterly review', status: 'created', payment_method: 'charge', price_cny: 49 }], 'the API has the order as the form made it');
  await page.locator('tbody tr').first().getByText('Awaiting payment').waitFor({ timeout: 30_000 });
  await check(t, page, 'verdicts');

  await page.getByRole('link', { name: 'Open the order' }).click();
  await page.getByTestId('verdict-status').getByText('Awaiting payment').waitFor({ timeout: 30_000 });
  t.match(await page.getByRole('link', { name: 'Pay for this report' }).getAttribute('href'), /\/billing\/invoices\/bi_/, 'its pay link is the invoice page');
  await check(t, page, 'verdict');

  // Paid with a report credit: queued at once.
  const grant = await call(app, 'POST', '/v1/admin/entitlements', { token: admin.access_token, body: { user_id: user.user_id, kind: 'report_pack', balance: 1 } });
  t.equal(grant.status, 201, 'a report credit granted');
  await page.getByRole('link', { name: 'All reports' }).click();
  await page.getByLabel('Target').fill('https://1.1.1.1/');
  await page.getByLabel('Payment').selectOption('report_credit');
  await page.getByRole('button', { name: 'Order report' }).click();
  await page.getByText('Ordered (¥99).').waitFor({ timeout: 30_000 });
  const newest = (await api('GET', '/v1/verdict/orders')).orders[0];
  t.match(newest, { template: 'uptime_sla', payment_method: 'report_credit', pay_url: '' }, 'paid by the credit');
  t.not(newest.status, 'created', 'and no longer waiting for a payment');
  t.same(problems, [], 'no script error or CSP violation');
});
