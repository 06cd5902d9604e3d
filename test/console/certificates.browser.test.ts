import { X509Certificate } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { seedNodes } from '../../control-plane/src/checks/test-support.js';
import { startCertificateJobs } from '../../control-plane/src/certificates/order-jobs.js';
import { acmeTestApp } from '../../control-plane/src/certificates/test-acme.js';
import { startBind, startPebble } from '../../control-plane/src/certificates/test-servers.js';
import { waitFor } from '../../control-plane/src/hub/test-harness.js';
import { createLogger } from '../../control-plane/src/log.js';
import { secretBoxOf } from '../../control-plane/src/secrets/secret-box.js';
import { call, registerUser } from '../../control-plane/src/test-support/app.js';
import { check, DIST, ensureBuilt, LOOPBACK, loginInBrowser, openBrowser, SHOTS, skip } from './browser-kit.js';

// The certificate pages and a channel's edit in Chromium against a real control plane on real
// Postgres, with Pebble (an RFC 8555 test CA) validating DNS-01 at a real BIND 9: a DNS credential
// stored through the form (a bad zone refused at its field first) and health-checked; one order
// with an IDN made as a draft, submitted, and issued by the certificate jobs main.ts runs (the
// order page follows it); the certificate listed, its PEM chain downloaded and parsed, an
// ssl_expiry monitor made of it, revoked with a reason at the CA; the credential revoked; an alert
// channel edited (a refused value shown at its field, then saved with its secret kept), each read
// back through the API. axe-core on every new page; screenshots to .tap/console/.

// The file as a whole (tap's default is 120 s per file): Pebble and BIND validate slowly on a loaded machine.
t.setTimeout(300_000);

t.test('console in Chromium: DNS credentials, certificate orders, certificates, editing a channel', { skip }, async (t) => {
  ensureBuilt();
  mkdirSync(SHOTS, { recursive: true });
  const bind = await startBind(t);
  const pebble = await startPebble(t, bind.port);
  const { app, deps, url } = await acmeTestApp(t, pebble, bind, { console_dir: DIST, certificates_jobs_interval_ms: 300, delivery_allow_cidrs: LOOPBACK });
  // The certificate jobs as main.ts starts them: order steps, health checks, expiry notices.
  const jobs = startCertificateJobs({ sql: deps.sql, config: deps.config, box: secretBoxOf(deps.config), log: createLogger('silent'), events: deps.events, mail: deps.mail });
  t.teardown(() => jobs.stop());
  const user = await registerUser(app);
  const as = { token: user.access_token };
  // The user runs a node that allows private targets: the test zone's names do not resolve, and
  // the certificate's monitor may still check them (docs/api/monitors.md "Targets").
  const [node] = await seedNodes(deps.sql, 1);
  await deps.sql`UPDATE nodes SET owner_user_id = ${user.user_id}, allow_private = true WHERE id = ${node!}`;
  const { page, problems } = await openBrowser(t);
  await loginInBrowser(page, url, user.email, user.password);

  // Certificates, empty: it says what to do next.
  await page.getByRole('link', { name: 'Certificates', exact: true }).first().click();
  await page.getByText('No certificates yet.').waitFor({ timeout: 30_000 });
  await check(t, page, 'certificates-empty');

  // A DNS credential for the test zone: a zone that is no DNS name is refused at its field, nothing stored.
  await page.getByRole('link', { name: 'DNS credentials', exact: true }).click();
  await page.getByText('No DNS credentials yet.').waitFor({ timeout: 30_000 });
  await page.getByLabel('Name', { exact: true }).fill('lab BIND');
  await page.getByLabel('Primary server').fill('127.0.0.1');
  await page.getByLabel('Port').fill(String(bind.port));
  await page.getByLabel('Zone', { exact: true }).fill('not a zone');
  await page.getByLabel('TSIG key name').fill(bind.key.name);
  await page.getByLabel('TSIG secret (base64)').fill(bind.key.secret_base64);
  await page.getByRole('button', { name: 'Store credential' }).click();
  t.match(await page.locator('#dns-zone-error').textContent({ timeout: 30_000 }), /DNS zone name/, 'the refused zone is shown at its field');
  t.equal((await call(app, 'GET', '/v1/dns-credentials', as)).body.data.total, 0, 'nothing stored');
  await check(t, page, 'dns-credentials-refused');
  await page.getByLabel('Zone', { exact: true }).fill(bind.zone);
  await page.getByRole('button', { name: 'Store credential' }).click();
  // Listed (its health may already be checked: the jobs check new credentials too).
  const row = page.locator('tr', { hasText: 'lab BIND' });
  await row.waitFor({ timeout: 30_000 });
  t.equal(await page.getByLabel('TSIG secret (base64)').inputValue(), '', 'the secret field is emptied once sent');
  const listed = await call(app, 'GET', '/v1/dns-credentials', as);
  t.match(listed.body.data.items, [{ provider: 'rfc2136', display_name: 'lab BIND', revoked_at: null }], 'the API has the credential');
  t.notOk(JSON.stringify(listed.body).includes(bind.key.secret_base64), 'the secret is never returned');
  await page.getByRole('button', { name: 'Check now: lab BIND' }).click();
  await page.getByText('lab BIND works').waitFor({ timeout: 60_000 });
  await row.getByText('Valid', { exact: true }).waitFor({ timeout: 30_000 });
  await check(t, page, 'dns-credentials');

  // An order through it, with an IDN: a draft, submitted, then issued by the jobs while its page watches.
  await page.getByRole('link', { name: 'Orders', exact: true }).click();
  await page.getByText('No orders yet.').waitFor({ timeout: 30_000 });
  await page.getByLabel('Names (SANs)').fill(`www.${bind.zone}\nbücher.${bind.zone}`);
  await page.getByLabel('DNS credential').selectOption({ label: 'lab BIND (RFC 2136 (BIND, Knot, PowerDNS) with TSIG)' });
  await check(t, page, 'certificate-orders-empty');
  await page.getByRole('button', { name: 'Create draft' }).click();
  await page.getByRole('heading', { name: `Order for www.${bind.zone}` }).waitFor({ timeout: 30_000 });
  await page.getByText(`bücher.${bind.zone}`).first().waitFor({ timeout: 30_000 });
  await page.getByText(`xn--bcher-kva.${bind.zone}`).waitFor({ timeout: 30_000 });
  t.equal(await page.getByTestId('order-status').textContent(), 'Draft');
  await check(t, page, 'certificate-order-draft');
  await page.getByRole('button', { name: 'Submit', exact: true }).click();
  await page.getByTestId('order-status').filter({ hasText: 'Issued' }).waitFor({ timeout: 200_000 });
  await page.getByRole('cell', { name: 'issued', exact: true }).waitFor({ timeout: 30_000 });
  await check(t, page, 'certificate-order-issued');
  const orders = await call(app, 'GET', '/v1/certificates/orders', as);
  const order = orders.body.data.items[0];
  t.match(order, { status: 'issued', challenge_type: 'dns-01', sans_unicode: [`www.${bind.zone}`, `bücher.${bind.zone}`], cert_id: Number }, 'the API has the order issued');
  t.ok(order.events.some((e: { action: string }) => e.action === 'txt_records_visible'), 'its records were seen on the authoritative server first');
  await page.getByRole('link', { name: 'All orders' }).click();
  await page.getByRole('link', { name: `www.${bind.zone}, bücher.${bind.zone}` }).waitFor({ timeout: 30_000 });
  await check(t, page, 'certificate-orders');

  // The certificate: listed with its days left; its PEM chain downloaded is what the CA issued.
  const cert = (await call(app, 'GET', `/v1/certificates/${order.cert_id}`, as)).body.data;
  await page.getByRole('link', { name: 'Certificates', exact: true }).last().click();
  const certRow = page.locator(`tr[data-certificate="${cert.id}"]`);
  await certRow.getByText(/\d+ days left/).waitFor({ timeout: 30_000 });
  await check(t, page, 'certificates');
  const [download] = await Promise.all([
    page.waitForEvent('download', { timeout: 30_000 }),
    page.getByRole('button', { name: `Download PEM: ${cert.sans[0]}` }).click(),
  ]);
  const leaf = new X509Certificate(readFileSync((await download.path())!, 'utf8'));
  t.equal(leaf.serialNumber.toLowerCase(), cert.serial_hex, 'the downloaded chain\'s leaf is the issued certificate');
  t.match(leaf.subjectAltName, `DNS:xn--bcher-kva.${bind.zone}`, 'with the IDN in its SANs');

  // Monitor it: an ssl_expiry monitor made in one call.
  await page.getByRole('button', { name: `Monitor this certificate: ${cert.sans[0]}` }).click();
  await page.getByText('Monitor created:').waitFor({ timeout: 30_000 });
  const monitors = await call(app, 'GET', '/v1/monitors', as);
  t.match(monitors.body.data.items, [{ type: 'ssl_expiry', name: /^Certificate / }], 'the API has the certificate\'s monitor');
  await page.getByRole('link', { name: monitors.body.data.items[0].name }).waitFor({ timeout: 30_000 });

  // Revoke it with a reason: revoking, then revoked at the CA by the jobs.
  await page.getByLabel(`Revocation reason for ${cert.sans[0]}`).selectOption('superseded');
  await page.getByRole('button', { name: `Revoke: ${cert.sans[0]}` }).click();
  await certRow.getByText('Revoking').waitFor({ timeout: 30_000 });
  await waitFor(async () => (await call(app, 'GET', `/v1/certificates/${cert.id}`, as)).body.data.status === 'revoked', 120_000);
  await page.reload();
  await certRow.getByText('Revoked', { exact: true }).waitFor({ timeout: 30_000 });
  await certRow.getByText('Superseded').waitFor({ timeout: 30_000 });
  t.match((await call(app, 'GET', `/v1/certificates/${cert.id}`, as)).body.data, { status: 'revoked', revoke_reason: 'superseded' }, 'the API has it revoked for the reason given');

  // The credential revoked: its secret erased, no more checks.
  await page.getByRole('link', { name: 'DNS credentials', exact: true }).click();
  await page.getByRole('button', { name: 'Revoke: lab BIND' }).click();
  await page.locator('tr', { hasText: 'lab BIND' }).getByText(/^Revoked /).waitFor({ timeout: 30_000 });
  t.ok((await call(app, 'GET', '/v1/dns-credentials', as)).body.data.items[0].revoked_at, 'the API has the credential revoked');

  // Editing a channel: a refused chat id shown at its field (nothing saved), then a new name and
  // chat id saved with the bot token left empty, so the stored one is kept. (Its Bot API address is
  // on loopback, which the app allows, since the test machine resolves no outside name; nothing is sent.)
  const made = await call(app, 'POST', '/v1/alert-channels', { ...as, body: { name: 'Ops Telegram', type: 'telegram', config: { bot_token: '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw', chat_id: '-1001234567890', api_base_url: 'http://127.0.0.1:9' } } });
  t.equal(made.status, 201, JSON.stringify(made.body));
  const stored = made.body.data;
  await page.goto(`${url}/alerts/channels`);
  await page.getByRole('button', { name: 'Edit channel Ops Telegram' }).click();
  await page.getByRole('heading', { name: 'Edit channel Ops Telegram' }).waitFor({ timeout: 30_000 });
  t.equal(await page.getByLabel('Bot token').inputValue(), '', 'the secret is not filled in');
  t.equal(await page.getByLabel('Chat id').inputValue(), '-1001234567890', 'the other settings are');
  await page.getByLabel('Chat id').fill('not a chat');
  await page.getByRole('button', { name: 'Save channel' }).click();
  t.match(await page.locator('#ch-chat_id-error').textContent({ timeout: 30_000 }), /chat id/, 'the refusal is shown at the field');
  await check(t, page, 'alert-channel-edit');
  t.same((await call(app, 'GET', `/v1/alert-channels/${stored.id}`, as)).body.data.config, stored.config, 'nothing changed');
  await page.getByLabel('Channel name').fill('Ops Telegram 2');
  await page.getByLabel('Chat id').fill('@vantage_ops');
  await page.getByRole('button', { name: 'Save channel' }).click();
  await page.getByRole('heading', { name: 'New channel' }).waitFor({ timeout: 30_000 });
  await page.getByRole('cell', { name: 'Ops Telegram 2', exact: true }).waitFor({ timeout: 30_000 });
  const edited = (await call(app, 'GET', `/v1/alert-channels/${stored.id}`, as)).body.data;
  t.match(edited, { name: 'Ops Telegram 2', config: { chat_id: '@vantage_ops', bot_token: stored.config.bot_token } }, 'the edit is saved and the bot token kept');
  // The browser logs the two refusals asked for above (the zone, the chat id); nothing else.
  t.same(problems, Array(2).fill('Failed to load resource: the server responded with a status of 400 (Bad Request)'), 'no script errors or CSP violations');
});
