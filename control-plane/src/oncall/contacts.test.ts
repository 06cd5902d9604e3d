import t from 'tap';
import { alertEnginePass, type AlertEngineDeps } from '../alerting/engine.js';
import { seedMonitor } from '../checks/test-support.js';
import { eventually, startReceiver } from '../delivery/test-support.js';
import { startSmtpServer } from '../email/test-support.js';
import { seedTeam } from '../teams/test-support.js';
import { call, registerUser, testApp } from '../test-support/app.js';

/*
 * On-call contacts (docs/api/teams.md "On-call contacts"): the person on call chooses how a page
 * reaches them, as a list of their own personal email, sms (their bound phone only) or webhook
 * alert channels; the engine then pages them there through the channels' real senders (a real
 * receiver on loopback here) instead of their account e-mail (a real SMTP server here).
 */

const PHONE = '+4915112345678';

t.test('a member pages by SMS to their bound phone and by their own webhook, checked like channels', async (t) => {
  const smtp = await startSmtpServer(t);
  const rx = await startReceiver(t);
  const ctx = await testApp(t, { config: { smtp_url: smtp.smtp_url, delivery_poll_interval_ms: 50, delivery_allow_cidrs: ['127.0.0.0/8'] }, delivery: true });
  const { app, sql } = ctx;
  const base = new URL(rx.url).origin;
  const [lead, alice] = [await registerUser(app), await registerUser(app)];
  const team = await seedTeam(sql, { owner: lead, member: alice });
  const as = (who: { access_token: string }, method: string, path: string, body?: unknown) => call(app, method, path, { token: who.access_token, body });
  const channel = async (who: { access_token: string }, body: Record<string, unknown>) => {
    const r = await as(who, 'POST', '/v1/alert-channels', body);
    if (r.status !== 201) throw new Error(JSON.stringify(r.body));
    return r.body.data.id as string;
  };
  const sms = (numbers: string[], team_id?: string) => channel(alice, { name: 'My phone', type: 'sms', config: { url: `${base}/sms`, phone_numbers: numbers }, ...(team_id ? { team_id } : {}) });
  const hook = await channel(alice, { name: 'My hook', type: 'webhook', config: { url: `${base}/hook` } });
  const slack = await channel(alice, { name: 'Slack', type: 'slack', config: { webhook_url: `${base}/slack` } });
  const leads = await channel(lead, { name: 'Lead hook', type: 'webhook', config: { url: `${base}/lead` } });
  const put = (channel_ids: string[], who = alice) => as(who, 'PUT', '/v1/oncall/notification-rules', { channel_ids });

  t.same((await as(alice, 'GET', '/v1/oncall/notification-rules')).body.data, { items: [] }, 'none by default: the account e-mail');
  const mine = await sms([PHONE]);
  const noPhone = await put([mine]);
  t.match(noPhone, { status: 400, body: { error: { code: 'VALIDATION_FAILED', details: { fields: [{ path: 'channel_ids[0]', message: /bind and verify a phone/ }] } } } }, 'sms needs a bound phone');
  // The phone binding (accounts) verified this number: written straight in, its SMS round trip is not under test.
  await sql`UPDATE users SET phone = ${PHONE} WHERE id = ${alice.user_id}`;
  const elsewhere = await sms([PHONE, '+4915199999999']);
  t.match(await put([elsewhere]), { status: 400, body: { error: { details: { fields: [{ path: 'channel_ids[0]', message: /bound phone/ }] } } } }, 'an sms channel to another number too');
  t.match(await put([hook, slack]), { status: 400, body: { error: { details: { fields: [{ path: 'channel_ids[1]' }] } } } }, 'a slack channel is no contact method');
  t.match(await put([leads]), { status: 404, body: { error: { code: 'ALERT_CHANNEL_NOT_FOUND', details: { fields: [{ path: 'channel_ids[0]' }] } } } }, 'another account\'s channel');
  t.match(await put([await sms([PHONE], team)]), { status: 404, body: { error: { code: 'ALERT_CHANNEL_NOT_FOUND' } } }, 'a team\'s channel is no personal one');
  t.match(await put([hook, hook]), { status: 400, body: { error: { code: 'VALIDATION_FAILED' } } }, 'no repeats');
  t.same((await as(alice, 'GET', '/v1/oncall/notification-rules')).body.data, { items: [] }, 'the refusals changed nothing');
  const key = await as(lead, 'POST', '/v1/account/api-keys', { name: 'ws', team_id: team });
  t.equal((await call(app, 'GET', '/v1/oncall/notification-rules', { token: key.body.data.key })).status, 403, 'a workspace token has no contact methods');
  const set = await put([mine, hook]);
  t.equal(set.status, 200, JSON.stringify(set.body));
  t.same(set.body.data.items, [{ channel_id: mine, method: 'sms', name: 'My phone' }, { channel_id: hook, method: 'webhook', name: 'My hook' }]);

  // Alice is on call all the time; the team's monitor goes down and the policy pages the schedule.
  const schedule = await as(lead, 'POST', '/v1/oncall/schedules', {
    team_id: team, name: 'Primary', rotations: [{ participants: [alice.user_id], starts_on: '2026-01-01', handoff_time: '00:00', shift_length: 1, shift_unit: 'weeks' }],
  });
  t.equal(schedule.status, 201, JSON.stringify(schedule.body));
  const { monitor_id } = await seedMonitor(sql, { user_id: lead.user_id, nodes: 1, state: 'up' });
  await sql`UPDATE monitors SET team_id = ${team}, name = 'Checkout API' WHERE id = ${monitor_id}`;
  const policy = await as(lead, 'POST', '/v1/alert-policies', {
    team_id: team, name: 'Page on-call', monitor_id, recovery_n: 1, escalation_levels: [{ level_index: 1, after_seconds: 60, schedule_ids: [schedule.body.data.id] }],
  });
  t.equal(policy.status, 201, JSON.stringify(policy.body));
  const deps: AlertEngineDeps = { sql, config: ctx.deps.config };
  const down = new Date('2026-03-02T10:00:00Z');
  await sql`
    INSERT INTO check_rounds (scheduled_at, deadline_at, decided_at, monitor_id, interval_s, expected, reported, failed, verdict, dirty)
    VALUES (${down}, ${down}, ${down}, ${monitor_id}, 60, 1, 1, 1, 'down', false)`;
  await sql`UPDATE monitors SET state = 'down', state_changed_at = ${down} WHERE id = ${monitor_id}`;
  await alertEnginePass(deps, down);
  await alertEnginePass(deps, new Date(down.getTime() + 60_000));

  const pages = await rx.waitFor(2);
  const sent = pages.find((r) => r.path === '/sms')!;
  t.ok(sent, 'the SMS gateway got the page');
  t.match(sent.body, PHONE, 'for the bound phone');
  t.match(sent.body, /Checkout API/);
  const posted = pages.find((r) => r.path === '/hook')!;
  t.match(JSON.parse(posted.body), { type: 'alert.trigger' }, 'the webhook got the page, as a webhook channel posts it');
  t.ok(posted.headers['webhook-signature'], 'signed like every webhook channel post');
  const recorded = await sql`SELECT channel_id, kind, delivery_id FROM alert_event_notifications WHERE level = 1`;
  t.match(recorded, [{ channel_id: schedule.body.data.id, kind: 'firing', delivery_id: String }], 'one page recorded for the schedule');
  const done = await eventually('both deliveries succeeded', async () => {
    const rows = await sql`SELECT channel, destination, status FROM deliveries WHERE message_id LIKE '%:firing:%' ORDER BY channel`;
    return rows.length === 2 && rows.every((r) => r.status === 'succeeded') ? rows : null;
  });
  t.same(done.map((r) => [r.channel, r.destination]), [['alert.sms', mine], ['alert.webhook', hook]], 'through the alert senders of those channels');
  t.notOk(smtp.messages.some((m) => /Checkout API/.test(m.parsed.subject ?? '')), 'no e-mail page: she chose other methods');

  // The recovery is told on the same methods.
  await sql`UPDATE monitors SET state = 'up', state_changed_at = ${new Date(down.getTime() + 120_000)} WHERE id = ${monitor_id}`;
  await alertEnginePass(deps, new Date(down.getTime() + 120_000));
  const all = await rx.waitFor(4);
  t.same(all.slice(2).map((r) => r.path).sort(), ['/hook', '/sms'], 'the resolution to both');
  t.equal(rx.received.filter((r) => r.path === '/lead' || r.path === '/slack').length, 0, 'nothing to channels not chosen');
});
