import { mkdirSync } from 'node:fs';
import t from 'tap';
import { startSmtpServer, type ReceivedMail } from '../../control-plane/src/email/test-support.js';
import { call, registerUser, testApp } from '../../control-plane/src/test-support/app.js';
import { check, DIST, ensureBuilt, loginInBrowser, mailConfig, openBrowser, SHOTS, skip } from './browser-kit.js';

// An e-mail channel's recipients on the alert channels page, in Chromium against a real control
// plane on real Postgres with its delivery worker and a real SMTP server on loopback: the
// account's own verified address confirmed, another address pending with its opt-in e-mail
// received; a resend within the minute refused as the API says (nothing sent); a minute later a
// resend from the page delivers a second opt-in e-mail with a new link, the first link no longer
// works and the new one confirms the address, which the page then shows. axe on the page, also
// dark and in Chinese.

t.setTimeout(300_000);

/** The confirm link of an opt-in e-mail. */
const linkOf = (mail: ReceivedMail): string => /https?:\/\/\S+\/v1\/alert-channels\/recipients\/confirm\?token=[0-9A-Za-z_-]+/.exec(String(mail.parsed.text))![0];

t.test('console in Chromium: e-mail recipients and opt-in resends', { skip }, async (t) => {
  ensureBuilt();
  mkdirSync(SHOTS, { recursive: true });
  const smtp = await startSmtpServer(t);
  const { app, sql, url } = await testApp(t, { config: { console_dir: DIST, ...mailConfig(smtp.smtp_url) }, delivery: true });
  const user = await registerUser(app);
  await sql`UPDATE users SET email_verified = true WHERE id = ${user.user_id}`;
  const made = await call(app, 'POST', '/v1/alert-channels', { token: user.access_token, body: { name: 'Ops mail', type: 'email', config: { to: [user.email, 'oncall@example.test'] } } });
  t.equal(made.status, 201, 'the channel is made');
  const channel_id = made.body.data.id;
  const recipient = async () => (await call(app, 'GET', `/v1/alert-channels/${channel_id}`, { token: user.access_token })).body.data.recipients
    .find((r: { address: string }) => r.address === 'oncall@example.test');
  // The opt-in e-mails among what the SMTP server received (registration sends its own e-mail too).
  const optIns = async (n: number): Promise<ReceivedMail[]> => {
    for (let k = 1; ; k++) {
      const found = (await smtp.waitFor(k, 60_000)).filter((m) => m.parsed.subject === 'Confirm alert e-mails from Vantage');
      if (found.length >= n) return found;
    }
  };
  const [first] = await optIns(1);
  t.match(String(first!.parsed.text), /\/v1\/alert-channels\/recipients\/confirm\?token=/, 'the opt-in e-mail of the new address, with its link');

  const { page, problems } = await openBrowser(t);
  await loginInBrowser(page, url, user.email, user.password);
  await page.goto(`${url}/alerts/channels`);
  const table = page.getByTestId(`recipients-${channel_id}`);
  await page.getByRole('heading', { name: 'Recipients of Ops mail' }).waitFor({ timeout: 30_000 });
  t.match(await table.getByRole('row', { name: new RegExp(user.email) }).innerText(), /Confirmed/, 'the account\'s own verified address is confirmed');
  t.equal(await page.getByRole('button', { name: `Resend opt-in e-mail to ${user.email}` }).count(), 0, 'and has no resend');
  t.match(await table.getByRole('row', { name: /oncall@example\.test/ }).innerText(), /Waiting for confirmation/);
  await check(t, page, 'alert-recipients');

  // Within the minute: refused, nothing sent.
  const before = await recipient();
  await page.getByRole('button', { name: 'Resend opt-in e-mail to oncall@example.test' }).click();
  await page.locator(`#recipients-error-${channel_id}`).waitFor({ timeout: 30_000 });
  t.equal((await recipient()).opt_in_sent_at, before.opt_in_sent_at, 'no new opt-in e-mail');

  // A minute later (the last one sent two minutes ago): a new e-mail with a new link.
  await sql`UPDATE alert_email_recipients SET opt_in_sent_at = opt_in_sent_at - interval '2 minutes' WHERE user_id = ${user.user_id} AND address = 'oncall@example.test'`;
  await page.reload();
  await page.getByRole('button', { name: 'Resend opt-in e-mail to oncall@example.test' }).click();
  await page.getByText('A new opt-in e-mail is on its way to oncall@example.test', { exact: false }).waitFor({ timeout: 30_000 });
  const second = (await optIns(2))[1]!;
  t.not(linkOf(second), linkOf(first!), 'a new link');
  t.equal((await fetch(linkOf(first!), { method: 'POST', headers: { accept: 'application/json' } })).status, 401, 'the first link no longer works');
  const confirmed = await fetch(linkOf(second), { method: 'POST', headers: { accept: 'application/json' } });
  t.equal(confirmed.status, 200, 'the new one confirms');
  t.match(await recipient(), { state: 'confirmed' });
  await page.reload();
  await table.getByRole('row', { name: /oncall@example\.test/ }).getByText('Confirmed').waitFor({ timeout: 30_000 });
  t.equal(await page.getByRole('button', { name: 'Resend opt-in e-mail to oncall@example.test' }).count(), 0, 'a confirmed address has no resend');
  await page.getByLabel('Theme').selectOption('dark');
  await check(t, page, 'alert-recipients-dark');
  await page.getByLabel('Theme').selectOption('system');
  await page.getByLabel('Language').selectOption('cn');
  await page.getByRole('heading', { name: 'Ops mail 的收件人' }).waitFor({ timeout: 30_000 });
  await check(t, page, 'alert-recipients-cn');
  await page.getByLabel('语言').selectOption('en');
  t.same(problems, ['Failed to load resource: the server responded with a status of 429 (Too Many Requests)'], 'no script error or CSP violation (but the refusal the test provoked)');
});
