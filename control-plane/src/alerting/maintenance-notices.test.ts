import t from 'tap';
import { connect } from '../db/sql.js';
import { eventually } from '../delivery/test-support.js';
import { startSmtpServer } from '../email/test-support.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { seedTeam } from '../teams/test-support.js';
import { alertEnginePass, type AlertEngineDeps } from './engine.js';

/*
 * Maintenance advance notice: a window created through the API with advance_notice_minutes, engine
 * passes on a clock the test moves, the e-mail sent by the real delivery worker to a real SMTP
 * server: once per occurrence, recurrences included (across Berlin's spring DST change), never
 * again after a restart or from a second instance, none for an occurrence already started.
 */

const at = (iso: string) => new Date(iso);

t.test('one e-mail to the owner per occurrence, advance_notice_minutes before it starts', async (t) => {
  const smtp = await startSmtpServer(t);
  const ctx = await testApp(t, { config: { smtp_url: smtp.smtp_url, delivery_poll_interval_ms: 50 }, delivery: true });
  const owner = await registerUser(ctx.app);
  await ctx.sql`UPDATE users SET timezone = 'Europe/Berlin' WHERE id = ${owner.user_id}`;
  // 02:30-03:00 Berlin daily from 2026-03-28 (CET: 01:30Z). On 03-29 02:30 does not exist (clocks
  // jump 02:00 → 03:00): that occurrence starts at 03:30 CEST = 01:30Z; from 03-30 at 02:30 CEST = 00:30Z.
  const created = await call(ctx.app, 'POST', '/v1/maintenance-windows', {
    token: owner.access_token,
    body: { title: 'Database upgrade', scope_type: 'all', starts_at: '2026-03-28T01:30:00Z', ends_at: '2026-03-28T02:00:00Z', recurrence: 'daily', advance_notice_minutes: 30 },
  });
  t.equal(created.status, 201, JSON.stringify(created.body));
  const window_id = created.body.data.id as string;
  const deps: AlertEngineDeps = { sql: ctx.sql, config: ctx.deps.config, mail: ctx.outbound.mail };
  const pass = async (iso: string, d = deps) => (await alertEnginePass(d, at(iso))).notices;

  t.equal(await pass('2026-03-28T00:59:00Z'), 0, '31 minutes before: not yet');
  t.equal(await pass('2026-03-28T01:00:00Z'), 1, '30 minutes before: the notice');
  t.equal(await pass('2026-03-28T01:00:01Z'), 0, 'once');
  t.equal(await pass('2026-03-28T01:31:00Z'), 0, 'during the occurrence: the next one is a day away');
  // A second instance (its own connections) and this one at the same instant: one notice.
  const other = connect(ctx.deps.config.database_url!, 2);
  t.teardown(() => other.end({ timeout: 5 }));
  const both = await Promise.all([pass('2026-03-29T01:05:00Z'), pass('2026-03-29T01:05:00Z', { ...deps, sql: other })]);
  t.equal(both[0] + both[1], 1, 'the next day\'s occurrence, announced by one instance');
  t.equal(await pass('2026-03-29T23:59:00Z'), 0, '00:59 CEST: the 00:30Z start is 31 minutes away');
  t.equal(await pass('2026-03-30T00:00:00Z'), 1, 'after the change: 30 minutes before 02:30 CEST');

  // The account's verification e-mail arrives too: only the notices are counted.
  const notices_of = (n: number) => eventually(`${n} notices`, () => {
    const m = smtp.messages.filter((x) => x.parsed.subject?.startsWith('Maintenance'));
    return m.length >= n ? m : null;
  });
  // The delivery engine sends concurrently: order the e-mails by the occurrence they announce.
  const startOf = (m: { parsed: { text?: string } }) => /\d{4}-\d\d-\d\dT[\d:.]+Z/.exec(m.parsed.text ?? '')?.[0] ?? '';
  const mails = (await notices_of(3)).slice().sort((a, b) => startOf(a).localeCompare(startOf(b)));
  t.equal(mails.length, 3);
  t.same(mails.map((m) => m.to), [[owner.email], [owner.email], [owner.email]], 'to the owner');
  t.same(mails.map((m) => m.parsed.subject), ['Maintenance in 30 min: Database upgrade', 'Maintenance in 25 min: Database upgrade', 'Maintenance in 30 min: Database upgrade']);
  t.match(mails[0]!.parsed.text, /starts at 2026-03-28 02:30 and ends at 2026-03-28 03:00 \(Europe\/Berlin; 2026-03-28T01:30:00.000Z/);
  t.match(mails[1]!.parsed.text, /starts at 2026-03-29 03:30 .*2026-03-29T01:30:00.000Z/);
  t.match(mails[2]!.parsed.text, /starts at 2026-03-30 02:30 .*2026-03-30T00:30:00.000Z/);
  t.match(mails[0]!.parsed.text, /covers all your monitors/);
  const notices = await ctx.sql`SELECT occurrence_start, outcome FROM maintenance_notices WHERE window_id = ${window_id} ORDER BY occurrence_start`;
  t.same(notices.map((n) => [n.occurrence_start.toISOString(), n.outcome]), [
    ['2026-03-28T01:30:00.000Z', 'queued'], ['2026-03-29T01:30:00.000Z', 'queued'], ['2026-03-30T00:30:00.000Z', 'queued'],
  ], 'one notice per occurrence');

  // A window whose start has passed (created late) gets no notice; patching it to later does.
  const late = await call(ctx.app, 'POST', '/v1/maintenance-windows', {
    token: owner.access_token, body: { scope_type: 'all', starts_at: '2026-04-01T10:00:00Z', ends_at: '2026-04-01T11:00:00Z', advance_notice_minutes: 60 },
  });
  t.equal(await pass('2026-04-01T10:00:00Z'), 0, 'an occurrence already started: no notice');
  await call(ctx.app, 'PATCH', `/v1/maintenance-windows/${late.body.data.id}`, { token: owner.access_token, body: { starts_at: '2026-04-01T10:30:00Z', ends_at: '2026-04-01T11:30:00Z' } });
  t.equal(await pass('2026-04-01T10:00:00Z'), 1, 'moved 30 minutes later: within its hour of notice');
  t.ok((await notices_of(4)).some((m) => /^Maintenance in 30 min: Maintenance$/.test(m.parsed.subject ?? '')), 'the moved window is announced');
  // Every e-mail left through the delivery engine (one `email` delivery each, succeeded).
  const rows = await eventually('deliveries done', async () => {
    const r = await ctx.sql`SELECT status FROM deliveries WHERE channel = 'email' AND event_type = 'maintenance.notice'`;
    return r.length === 4 && r.every((x) => x.status === 'succeeded') ? r : null;
  });
  t.equal(rows.length, 4);
});

t.test('a team window: every member (not viewers) is told, in the team\'s time zone', async (t) => {
  const smtp = await startSmtpServer(t);
  const ctx = await testApp(t, { config: { smtp_url: smtp.smtp_url, delivery_poll_interval_ms: 50 }, delivery: true });
  const [owner, admin, member, viewer, outsider] = await Promise.all([1, 2, 3, 4, 5].map(() => registerUser(ctx.app)));
  const team_id = await seedTeam(ctx.sql, { owner: owner!, admin: admin!, member: member!, viewer: viewer! });
  await ctx.sql`UPDATE users SET timezone = 'Europe/Berlin' WHERE id = ${member!.user_id}`;
  const tz = await call(ctx.app, 'PATCH', `/v1/teams/${team_id}`, { token: admin!.access_token, body: { time_zone: 'America/New_York' } });
  t.equal(tz.status, 200, 'an admin sets the team\'s time zone');
  // 07:30-08:30 New York daily from 03-06 (12:30Z in winter time); after the US change on 03-08 at 11:30Z.
  const created = await call(ctx.app, 'POST', '/v1/maintenance-windows', {
    token: member!.access_token,
    body: { title: 'Router swap', scope_type: 'all', starts_at: '2026-03-06T12:30:00Z', ends_at: '2026-03-06T13:30:00Z', recurrence: 'daily', advance_notice_minutes: 30, team_id },
  });
  t.equal(created.status, 201, JSON.stringify(created.body));
  const deps: AlertEngineDeps = { sql: ctx.sql, config: ctx.deps.config, mail: ctx.outbound.mail };
  const pass = async (iso: string) => (await alertEnginePass(deps, at(iso))).notices;
  t.equal(await pass('2026-03-09T10:59:00Z'), 0, '31 minutes before 07:30 New York summer time');
  t.equal(await pass('2026-03-09T11:00:00Z'), 1, '30 minutes before: one occurrence noticed');
  t.equal(await pass('2026-03-09T11:00:30Z'), 0, 'once');

  const mails = await eventually('3 notices', () => {
    const m = smtp.messages.filter((x) => x.parsed.subject?.startsWith('Maintenance'));
    return m.length >= 3 ? m : null;
  });
  t.same(mails.map((m) => m.to[0]).sort(), [owner!.email, admin!.email, member!.email].sort(), 'owner, admin and member; no viewer, no outsider');
  for (const m of mails) {
    t.match(m.parsed.text, /Your team's maintenance window "Router swap" .* starts at 2026-03-09 07:30 and ends at 2026-03-09 08:30 \(America\/New_York; 2026-03-09T11:30:00.000Z/);
    t.match(m.parsed.text, /covers all the team's monitors/);
  }
  // The notice's e-mails are queued in one transaction: the deliveries are all there is to send.
  const queued = await ctx.sql<{ destination: string }[]>`SELECT destination FROM deliveries WHERE event_type = 'maintenance.notice' ORDER BY destination`;
  t.same(queued.map((q) => q.destination), [owner!.email, admin!.email, member!.email].map((e) => e.toLowerCase()).sort(), 'nothing queued for the viewer or the outsider');
});
