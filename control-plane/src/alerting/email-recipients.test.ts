import t, { type Test } from 'tap';
import type { Config } from '../config/index.js';
import { eventually } from '../delivery/test-support.js';
import { startSmtpServer, type ReceivedMail } from '../email/test-support.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { ALERT_TEST_SEND_LIMIT, OPT_IN_MAIL_LIMIT } from './send-limits.js';

/*
 * E-mail channel recipients (docs/api/alerting.md "E-mail recipients"): an address other than the
 * account's own verified one receives nothing but one opt-in e-mail until its recipient confirms
 * through the link in it; every alert e-mail carries an unsubscribe link. Real SMTP server, real
 * delivery engine, the links taken from the e-mails received.
 */

const FAST: Partial<Config> = { delivery_poll_interval_ms: 50, delivery_retry_delays_ms: [50, 50], public_url: 'https://vantage.example' };
const PHISH = 'Pay your invoice at https://evil.example/login now';

async function setup(t: Test) {
  const smtp = await startSmtpServer(t);
  const ctx = await testApp(t, { config: { ...FAST, smtp_url: smtp.smtp_url, smtp_from: 'Vantage <noreply@vantage.test>' }, delivery: true });
  const account = async () => {
    const user = await registerUser(ctx.app);
    const as = (method: string, path: string, body?: unknown) => call(ctx.app, method, path, { token: user.access_token, body });
    return { user, as };
  };
  /** Messages the SMTP server got for `address`. */
  const to = (address: string) => smtp.messages.filter((m) => m.to.map((a) => a.toLowerCase()).includes(address.toLowerCase()));
  const waitTo = (address: string, n: number) => eventually(`${n} e-mail(s) to ${address}`, () => (to(address).length >= n ? to(address) : null));
  return { smtp, ctx, account, to, waitTo };
}

/** The link of `path` (`/v1/alert-channels/recipients/confirm` or `/unsubscribe`) in a received e-mail's text. */
function linkIn(mail: ReceivedMail, path: string): string {
  const m = new RegExp(`https://vantage\\.example(${path.replace(/[/.]/g, '\\$&')}\\?token=[^\\s>]+)`).exec(mail.parsed.text ?? '');
  if (!m) throw new Error(`no ${path} link in: ${mail.parsed.text}`);
  return m[1]!;
}

const CONFIRM = '/v1/alert-channels/recipients/confirm';
const UNSUBSCRIBE = '/v1/alert-channels/recipients/unsubscribe';
const HTML = { accept: 'text/html,application/xhtml+xml' };

t.test('an outside address gets only the opt-in e-mail until it confirms through its link', async (t) => {
  const s = await setup(t);
  const { user, as } = await s.account();
  const created = await as('POST', '/v1/alert-channels', { name: PHISH, type: 'email', config: { to: ['Outside@Example.test'] } });
  t.equal(created.status, 201);
  const id = created.body.data.id;
  t.match(created.body.data.recipients, [{ address: 'outside@example.test', state: 'pending' }], 'the API shows the recipient pending');

  const test1 = await as('POST', `/v1/alert-channels/${id}/test`);
  t.equal(test1.status, 200);
  t.match(test1.body.data, { status: 'failed', verified: false }, 'a test send to a channel without a confirmed recipient fails');
  t.match(test1.body.data.error, /outside@example\.test: pending confirmation/, 'and says why');

  const [optin] = await s.waitTo('outside@example.test', 1);
  t.equal(s.to('outside@example.test').length, 1, 'the outside address got one e-mail: the opt-in');
  t.equal(optin!.parsed.subject, 'Confirm alert e-mails from Vantage', 'a fixed subject, no account text in it');
  t.notMatch(optin!.parsed.text, /https:\/\/evil\.example/, 'the account-chosen name never shows as a URL in the text');
  t.match(optin!.parsed.text, /hxxps\[:\]\/\/evil\[\.\]example\/login/, 'it is shown defanged, as plain text');
  t.match(optin!.parsed.text, /chosen by the account/, 'marked as chosen by the account');
  t.notMatch(String(optin!.parsed.html), /evil\.example/, 'nor in the HTML');
  t.same([...String(optin!.parsed.html).matchAll(/href="([^"]+)"/g)].map((m) => new URL(m[1]!.replace(/&amp;/g, '&')).origin), ['https://vantage.example'], 'the HTML links only to the confirm page');
  t.notMatch(optin!.parsed.text, new RegExp(user.email), 'the account\'s address is not disclosed');

  const link = linkIn(optin!, CONFIRM);
  const page = await call(s.ctx.app, 'GET', link, { headers: HTML });
  t.equal(page.status, 200);
  t.match(page.headers.get('content-type'), /^text\/html/);
  t.match(page.body, /<form method="post"/, 'GET shows a button (link scanners only GET)');
  t.equal(page.headers.get('cache-control'), 'no-store');
  t.equal(page.headers.get('referrer-policy'), 'no-referrer');
  const peek = await call(s.ctx.app, 'GET', link);
  t.match(peek.body.data, { address: 'outside@example.test', state: 'pending', action: 'confirm' }, 'GET as JSON describes, confirms nothing');
  t.match((await as('GET', `/v1/alert-channels/${id}`)).body.data.recipients, [{ state: 'pending' }], 'still pending after the GETs');

  const confirmed = await call(s.ctx.app, 'POST', link, { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
  t.equal(confirmed.status, 200);
  t.match(confirmed.body.data, { address: 'outside@example.test', state: 'confirmed' });
  t.match((await as('GET', `/v1/alert-channels/${id}`)).body.data.recipients, [{ address: 'outside@example.test', state: 'confirmed' }]);
  t.equal((await call(s.ctx.app, 'POST', link)).status, 200, 'clicking again is harmless');

  const test2 = await as('POST', `/v1/alert-channels/${id}/test`);
  t.match(test2.body.data, { status: 'succeeded', verified: true });
  const [, alert] = await s.waitTo('outside@example.test', 2);
  t.match(alert!.parsed.subject, /Vantage test notification/);
  t.same(alert!.to, ['outside@example.test'], 'one e-mail per recipient');
  const unsub = linkIn(alert!, UNSUBSCRIBE);
  const list = alert!.parsed.headers.get('list') as { unsubscribe?: { url?: string }; 'unsubscribe-post'?: { name?: string } };
  t.equal(list.unsubscribe?.url, `https://vantage.example${unsub}`, 'List-Unsubscribe (RFC 2369)');
  t.equal(list['unsubscribe-post']?.name, 'List-Unsubscribe=One-Click', 'one-click (RFC 8058)');
  t.match(String(alert!.parsed.html), /Unsubscribe/);

  t.match((await call(s.ctx.app, 'GET', unsub, { headers: HTML })).body, /<form method="post"/, 'unsubscribe GET shows a button');
  t.match((await as('GET', `/v1/alert-channels/${id}`)).body.data.recipients, [{ state: 'confirmed' }], 'GET unsubscribes nothing');
  const gone = await call(s.ctx.app, 'POST', unsub, { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
  t.equal(gone.status, 200);
  t.match(gone.body.data, { address: 'outside@example.test', state: 'unsubscribed' });
  t.match((await as('GET', `/v1/alert-channels/${id}`)).body.data.recipients, [{ state: 'unsubscribed' }]);
  const test3 = await as('POST', `/v1/alert-channels/${id}/test`);
  t.match(test3.body.data, { status: 'failed' });
  t.match(test3.body.data.error, /outside@example\.test: unsubscribed/);
  const resend = await as('POST', `/v1/alert-channels/${id}/recipients/opt-in`, { address: 'outside@example.test' });
  t.equal(resend.status, 409, 'an unsubscribed address is not mailed again');
  t.equal(s.to('outside@example.test').length, 2, 'nothing more reached the address');
});

t.test('the account\'s own verified address receives at once; skipped recipients are in the delivery log', async (t) => {
  const s = await setup(t);
  const { user, as } = await s.account();
  const [verification] = await s.waitTo(user.email, 1);
  const token = decodeURIComponent(/verify-email\?token=([^\s]+)/.exec(verification!.parsed.text!)![1]!);
  t.equal((await call(s.ctx.app, 'POST', '/v1/auth/verify-email', { body: { token } })).status, 200);

  const own = await as('POST', '/v1/alert-channels', { name: 'me', type: 'email', config: { to: [user.email.toUpperCase()] } });
  t.match(own.body.data.recipients, [{ address: user.email, state: 'confirmed' }], 'confirmed at once');
  const r = await as('POST', `/v1/alert-channels/${own.body.data.id}/test`);
  t.match(r.body.data, { status: 'succeeded' });
  const mails = await s.waitTo(user.email, 2);
  t.match(mails[1]!.parsed.subject, /Vantage test notification/, 'the second e-mail is the test, no opt-in before it');

  const mixed = await as('POST', '/v1/alert-channels', { name: 'mixed', type: 'email', config: { to: [user.email, 'other@example.test'] } });
  const m = await as('POST', `/v1/alert-channels/${mixed.body.data.id}/test`);
  t.match(m.body.data, { status: 'succeeded' });
  await s.waitTo(user.email, 3);
  await s.waitTo('other@example.test', 1);
  t.equal(s.to('other@example.test').length, 1, 'the other address got only its opt-in');
  t.equal(s.to('other@example.test')[0]!.parsed.subject, 'Confirm alert e-mails from Vantage');
  const [attempt] = await s.ctx.sql<{ response_body: string }[]>`SELECT a.response_body FROM delivery_attempts a WHERE a.delivery_id = ${m.body.data.delivery_id}`;
  t.match(attempt!.response_body, /skipped other@example\.test: pending confirmation/, 'the attempt log says who was skipped and why');
});

t.test('test sends and opt-in e-mails are rate-limited per account (429, Retry-After)', async (t) => {
  // The budgets are fixed windows aligned on the clock: start well inside one, so none ends mid-test.
  for (const { window_s } of [ALERT_TEST_SEND_LIMIT, OPT_IN_MAIL_LIMIT]) {
    const left_s = window_s - ((Date.now() / 1000) % window_s);
    if (left_s < 90) await new Promise((r) => setTimeout(r, (left_s + 1) * 1000));
  }
  const s = await setup(t);
  const a = await s.account();
  const b = await s.account();
  const ch = await a.as('POST', '/v1/alert-channels', { name: 'me', type: 'email', config: { to: [a.user.email] } });
  for (let i = 0; i < ALERT_TEST_SEND_LIMIT.limit; i++) t.equal((await a.as('POST', `/v1/alert-channels/${ch.body.data.id}/test`)).status, 200);
  const limited = await a.as('POST', `/v1/alert-channels/${ch.body.data.id}/test`);
  t.equal(limited.status, 429);
  t.equal(limited.body.error.code, 'RATE_LIMIT_EXCEEDED');
  t.ok(limited.body.request_id && limited.body.error.request_id, 'the error envelope');
  const retry = Number(limited.headers.get('retry-after'));
  t.ok(retry >= 1 && retry <= ALERT_TEST_SEND_LIMIT.window_s, `Retry-After ${retry}`);
  t.equal(limited.headers.get('x-ratelimit-limit'), String(ALERT_TEST_SEND_LIMIT.limit), 'X-RateLimit-Limit of the account\'s test budget');
  t.equal(limited.headers.get('x-ratelimit-remaining'), '0');
  t.ok(Date.parse(limited.headers.get('x-ratelimit-reset') ?? '') > Date.now(), 'X-RateLimit-Reset');

  const addresses = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}-${i}@example.test`);
  let sent = 1; // the account's own address is not verified here: its channel above sent it an opt-in
  while (sent < OPT_IN_MAIL_LIMIT.limit) {
    const n = Math.min(10, OPT_IN_MAIL_LIMIT.limit - sent);
    t.equal((await a.as('POST', '/v1/alert-channels', { name: `c${sent}`, type: 'email', config: { to: addresses(n, `r${sent}`) } })).status, 201);
    sent += n;
  }
  const before = (await a.as('GET', '/v1/alert-channels')).body.data.items.length;
  const over = await a.as('POST', '/v1/alert-channels', { name: 'one more', type: 'email', config: { to: ['late@example.test'] } });
  t.equal(over.status, 429);
  t.equal(over.body.error.code, 'RATE_LIMIT_EXCEEDED');
  t.ok(Number(over.headers.get('retry-after')) >= 1, 'Retry-After');
  t.equal((await a.as('GET', '/v1/alert-channels')).body.data.items.length, before, 'nothing was created');
  const patch = await a.as('PATCH', `/v1/alert-channels/${ch.body.data.id}`, { config: { to: [a.user.email, 'late@example.test'] } });
  t.equal(patch.status, 429, 'nor by adding an address to a channel');
  t.same((await a.as('GET', `/v1/alert-channels/${ch.body.data.id}`)).body.data.config.to, [a.user.email], 'the channel is unchanged');
  t.equal((await a.as('PATCH', `/v1/alert-channels/${ch.body.data.id}`, { name: 'renamed' })).status, 200, 'a change without new addresses is not limited');
  t.equal((await b.as('POST', '/v1/alert-channels', { name: 'b', type: 'email', config: { to: ['late@example.test'] } })).status, 201, 'another account has its own budget');
  await s.waitTo('late@example.test', 1);
  t.equal(s.to('late@example.test').length, 1, 'only b\'s opt-in reached the address');
});

t.test('another account can neither see nor confirm; bad tokens are refused; resend replaces the link', async (t) => {
  const s = await setup(t);
  const a = await s.account();
  const b = await s.account();
  const chA = (await a.as('POST', '/v1/alert-channels', { name: 'a', type: 'email', config: { to: ['shared@example.test'] } })).body.data.id;
  const chB = (await b.as('POST', '/v1/alert-channels', { name: 'b', type: 'email', config: { to: ['shared@example.test'] } })).body.data.id;
  t.equal((await b.as('GET', `/v1/alert-channels/${chA}`)).status, 404, 'b cannot read a\'s channel');
  t.equal((await b.as('POST', `/v1/alert-channels/${chA}/recipients/opt-in`, { address: 'shared@example.test' })).status, 404, 'nor resend its opt-in');
  const mails = await s.waitTo('shared@example.test', 2);
  const links = mails.map((m) => linkIn(m, CONFIRM));
  t.equal((await call(s.ctx.app, 'POST', links[0]!)).status, 200);
  const states = async () => [
    (await a.as('GET', `/v1/alert-channels/${chA}`)).body.data.recipients[0].state,
    (await b.as('GET', `/v1/alert-channels/${chB}`)).body.data.recipients[0].state,
  ];
  const after = await states();
  t.same([...after].sort(), ['confirmed', 'pending'], 'one link confirms its own account\'s recipient only');

  for (const [what, bad] of [['garbage', 'x'.repeat(43)], ['tampered', `${links[1]!.split('token=')[1]!.slice(0, -2)}AA`], ['empty', '']] as const) {
    const r = await call(s.ctx.app, 'POST', `${CONFIRM}?token=${bad}`);
    t.ok(r.status === 401 || r.status === 400, `${what}: ${r.status}`);
    const page = await call(s.ctx.app, 'GET', `${CONFIRM}?token=${bad}`, { headers: HTML });
    t.ok(page.status === 401 || page.status === 400, `${what} (page): ${page.status}`);
    t.match(page.headers.get('content-type'), /^text\/html/, `${what}: a browser gets a page`);
  }
  t.equal((await call(s.ctx.app, 'POST', `${UNSUBSCRIBE}?token=${links[1]!.split('token=')[1]}`)).status, 401, 'an opt-in token is not an unsubscribe token');
  t.same((await states()).sort(), ['confirmed', 'pending'], 'bad tokens changed nothing');

  // Resend: the pending account may send one new opt-in after the interval; the old link then stops working.
  const pendingAs = after[0] === 'pending' ? a : b;
  const pendingCh = after[0] === 'pending' ? chA : chB;
  const soon = await pendingAs.as('POST', `/v1/alert-channels/${pendingCh}/recipients/opt-in`, { address: 'shared@example.test' });
  t.equal(soon.status, 429, 'too soon after the first');
  t.ok(Number(soon.headers.get('retry-after')) >= 1);
  t.equal((await pendingAs.as('POST', `/v1/alert-channels/${pendingCh}/recipients/opt-in`, { address: 'nobody@example.test' })).status, 400, 'an address not in the channel');
  await s.ctx.sql`UPDATE alert_email_recipients SET opt_in_sent_at = now() - interval '1 hour' WHERE state = 'pending'`;
  const again = await pendingAs.as('POST', `/v1/alert-channels/${pendingCh}/recipients/opt-in`, { address: 'shared@example.test' });
  t.equal(again.status, 200);
  t.match(again.body.data, { address: 'shared@example.test', state: 'pending', email_delivery: 'queued' });
  const third = (await s.waitTo('shared@example.test', 3))[2]!;
  const oldLink = links.find((l) => l !== links[0])!;
  t.equal((await call(s.ctx.app, 'POST', oldLink)).status, 401, 'the replaced link no longer works');
  t.equal((await call(s.ctx.app, 'POST', linkIn(third, CONFIRM))).status, 200, 'the new one does');
  t.same(await states(), ['confirmed', 'confirmed']);
  await s.ctx.sql`UPDATE alert_email_recipients SET opt_in_expires_at = now() - interval '1 second'`;
  t.equal((await call(s.ctx.app, 'POST', linkIn(third, CONFIRM))).status, 200, 'an expired link of a confirmed address still says it is confirmed');

  await a.as('POST', '/v1/alert-channels', { name: 'late', type: 'email', config: { to: ['slow@example.test'] } });
  const [slow] = await s.waitTo('slow@example.test', 1);
  await s.ctx.sql`UPDATE alert_email_recipients SET opt_in_expires_at = now() - interval '1 second' WHERE address = 'slow@example.test'`;
  const expired = await call(s.ctx.app, 'POST', linkIn(slow!, CONFIRM));
  t.equal(expired.status, 401);
  t.equal(expired.body.error.code, 'TOKEN_EXPIRED', 'an expired link of a pending address says so');
  const expiredPage = await call(s.ctx.app, 'GET', linkIn(slow!, CONFIRM), { headers: HTML });
  t.equal(expiredPage.status, 401);
  t.match(expiredPage.body, /expired/);
  t.notMatch(expiredPage.body, /<form/, 'and offers no button');
});
