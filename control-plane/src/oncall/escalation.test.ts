import t from 'tap';
import { alertEnginePass, type AlertEngineDeps } from '../alerting/engine.js';
import { seedMonitor } from '../checks/test-support.js';
import { eventually } from '../delivery/test-support.js';
import { startSmtpServer } from '../email/test-support.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { seedTeam } from '../teams/test-support.js';

/*
 * An escalation level paging an on-call schedule reaches the person on call at that moment: a
 * team policy made through the API whose level 1 pages a Berlin schedule, engine passes on a clock
 * the test moves across the spring-forward change, and the e-mail sent by the real delivery
 * worker to a real SMTP server. The event fires at 08:59:30 CEST, while Alice's shift runs; level
 * 1 is due a minute later, at 09:00:30 CEST, when Bob's has begun: Bob is paged, Alice is not.
 */

t.test('escalation to a schedule e-mails the person on call when the level fires', async (t) => {
  const smtp = await startSmtpServer(t);
  const ctx = await testApp(t, { config: { smtp_url: smtp.smtp_url, delivery_poll_interval_ms: 50 }, delivery: true });
  const { app, sql } = ctx;
  const [lead, alice, bob, outsider] = [await registerUser(app), await registerUser(app), await registerUser(app), await registerUser(app)];
  const team = await seedTeam(sql, [[lead, 'owner'], [alice, 'member'], [bob, 'member']]);
  const other_team = await seedTeam(sql, { owner: outsider });

  const created = await call(app, 'POST', '/v1/oncall/schedules', {
    token: lead.access_token,
    body: { team_id: team, name: 'Primary', time_zone: 'Europe/Berlin', rotations: [{ participants: [alice.user_id, bob.user_id], starts_on: '2026-03-28', handoff_time: '09:00', shift_length: 1, shift_unit: 'days' }] },
  });
  t.equal(created.status, 201, JSON.stringify(created.body));
  const schedule_id = created.body.data.id as string;
  const foreign = (await call(app, 'POST', '/v1/oncall/schedules', { token: outsider.access_token, body: { team_id: other_team, name: 'Theirs' } })).body.data.id as string;

  // The team's monitor (written straight in: its probing is not under test) and a team policy.
  const { monitor_id } = await seedMonitor(sql, { user_id: lead.user_id, nodes: 1, state: 'up' });
  await sql`UPDATE monitors SET team_id = ${team}, name = 'Checkout API' WHERE id = ${monitor_id}`;
  const policy = { team_id: team, name: 'Page on-call', monitor_id, recovery_n: 1, escalation_levels: [{ level_index: 1, after_seconds: 60, schedule_ids: [schedule_id] }] };
  let r = await call(app, 'POST', '/v1/alert-policies', { token: lead.access_token, body: { ...policy, escalation_levels: [{ level_index: 1, after_seconds: 60, schedule_ids: [foreign] }] } });
  t.equal(r.status, 404, 'another team\'s schedule');
  t.equal(r.body.error?.code, 'ONCALL_SCHEDULE_NOT_FOUND');
  t.same(r.body.error?.details?.fields?.map((f: { path: string }) => f.path), ['escalation_levels[0].schedule_ids[0]']);
  r = await call(app, 'POST', '/v1/alert-policies', { token: lead.access_token, body: { ...policy, escalation_levels: [{ level_index: 1, after_seconds: 60 }] } });
  t.equal(r.status, 400, 'a level with neither channel nor schedule');
  r = await call(app, 'POST', '/v1/alert-policies', { token: lead.access_token, body: policy });
  t.equal(r.status, 201, JSON.stringify(r.body));
  t.same(r.body.data.escalation_levels.map((l: { schedule_ids: string[]; channel_ids: string[] }) => [l.channel_ids, l.schedule_ids]), [[[], [schedule_id]]], 'the level as returned');
  const policy_id = r.body.data.id as string;
  r = await call(app, 'PATCH', `/v1/alert-policies/${policy_id}`, { token: lead.access_token, body: { delay_s: 0 } });
  t.same(r.body.data.escalation_levels[0].schedule_ids, [schedule_id], 'a PATCH without levels keeps the schedules');
  r = await call(app, 'DELETE', `/v1/oncall/schedules/${schedule_id}`, { token: lead.access_token });
  t.equal(r.status, 409, 'a schedule a level pages is not deleted');
  t.same(r.body.error?.details?.policy_ids, [policy_id]);

  // Down at 06:59:30Z (08:59:30 CEST): the event opens; level 1 is due at 07:00:30Z.
  const deps: AlertEngineDeps = { sql, config: ctx.deps.config };
  const down = new Date('2026-03-29T06:59:30Z');
  await sql`
    INSERT INTO check_rounds (scheduled_at, deadline_at, decided_at, monitor_id, interval_s, expected, reported, failed, verdict, dirty)
    VALUES (${down}, ${down}, ${down}, ${monitor_id}, 60, 1, 1, 1, 'down', false)`;
  await sql`UPDATE monitors SET state = 'down', state_changed_at = ${down} WHERE id = ${monitor_id}`;
  const who = async (at: string) => (await call(app, 'GET', `/v1/oncall/schedules/${schedule_id}/on-call?at=${at}`, { token: alice.access_token })).body.data.user_id;
  t.equal(await who(down.toISOString()), alice.user_id, 'Alice is on call when it goes down');
  t.equal(await who('2026-03-29T07:00:30Z'), bob.user_id, 'Bob when level 1 is due');

  t.match(await alertEnginePass(deps, down), { opened: 1 });
  await alertEnginePass(deps, new Date('2026-03-29T07:00:00Z'));
  t.equal((await sql`SELECT count(*)::int AS n FROM alert_event_notifications WHERE level = 1`)[0]!.n, 0, 'level 1 not due yet');
  await alertEnginePass(deps, new Date('2026-03-29T07:00:30Z'));
  const pages = await sql`SELECT channel_id, level, kind, delivery_id FROM alert_event_notifications WHERE level = 1`;
  t.match(pages, [{ channel_id: schedule_id, level: 1, kind: 'firing', delivery_id: String }], 'one page recorded for the schedule');

  const mail = await eventually('the page e-mail', () => smtp.messages.find((m) => /Checkout API/.test(m.parsed.subject ?? '')) ?? null);
  t.same(mail.to, [bob.email], 'to Bob, on call at that moment');
  t.match(mail.parsed.text, /on call on the schedule "Primary"/);
  t.notOk(smtp.messages.some((m) => m.to.includes(alice.email) && /Checkout API/.test(m.parsed.subject ?? '')), 'Alice is not paged');
  const delivery = await eventually('delivery succeeded', async () => {
    const [row] = await sql`SELECT channel, destination, status FROM deliveries WHERE id = ${pages[0]!.delivery_id}`;
    return row?.status === 'succeeded' ? row : null;
  });
  t.match(delivery, { channel: 'email', destination: bob.email.toLowerCase() }, 'through the delivery engine\'s e-mail channel');

  // Another pass repeats nothing.
  await alertEnginePass(deps, new Date('2026-03-29T07:05:00Z'));
  t.equal((await sql`SELECT count(*)::int AS n FROM alert_event_notifications WHERE level = 1 AND kind = 'firing'`)[0]!.n, 1, 'paged once');

  // Acknowledging tells whoever is on call then, by the same path: the ack happens now, on the
  // real clock, when the daily rotation has Alice or Bob on call depending on the date.
  const [event] = await sql`SELECT id FROM alert_events WHERE policy_id = ${policy_id}`;
  const email_of = (user_id: string) => [alice, bob].find((u) => u.user_id === user_id)!.email;
  const on_call_before = email_of(await who(new Date().toISOString()));
  r = await call(app, 'POST', `/v1/alert-events/${event!.id}/ack`, { token: lead.access_token });
  const on_call_after = email_of(await who(new Date().toISOString()));
  t.equal(r.status, 200, JSON.stringify(r.body));
  const acks = await eventually('the acknowledgement e-mail', () => {
    const found = smtp.messages.filter((m) => /Checkout API/.test(m.parsed.subject ?? ''));
    return found.length >= 2 ? found : null;
  });
  t.same(acks[0]!.to, [bob.email], 'the page to Bob');
  t.ok([on_call_before, on_call_after].some((e) => acks[1]!.to.length === 1 && acks[1]!.to[0] === e), `the acknowledgement to whoever is on call now (${on_call_before}), not ${acks[1]!.to.join(', ')}`);
  t.equal((await sql`SELECT count(*)::int AS n FROM alert_event_notifications WHERE channel_id = ${schedule_id} AND kind = 'acknowledged'`)[0]!.n, 1);
});
