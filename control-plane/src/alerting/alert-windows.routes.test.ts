import t from 'tap';
import { call, registerUser, testApp } from '../test-support/app.js';

/* Silences, alert groups and maintenance windows: create/list/patch/delete, status by time, validation, ownership. */

async function setup(t: { teardown(fn: () => unknown): void }) {
  const ctx = await testApp(t);
  const a = await registerUser(ctx.app);
  const b = await registerUser(ctx.app);
  const req = (who: { access_token: string }, method: string, path: string, body?: unknown) => call(ctx.app, method, path, { token: who.access_token, body });
  const m = (await req(a, 'POST', '/v1/monitors', { name: 'hb', type: 'heartbeat', config: { cron: '0 3 * * *', timezone: 'UTC', grace_s: 900 } })).body.data.id as string;
  return { ctx, a, b, req, m };
}
const iso = (offset_ms: number) => new Date(Date.now() + offset_ms).toISOString();
const H = 3600_000;

t.test('silences: status upcoming, active, expired; one monitor or all; validation; ownership', async (t) => {
  const s = await setup(t);
  const mk = (body: object) => s.req(s.a, 'POST', '/v1/alert-silences', body);
  const active = await mk({ monitor_id: s.m, reason: 'deploy', starts_at: iso(-H), ends_at: iso(H) });
  t.match(active, { status: 201, body: { data: { status: 'active', monitor_id: s.m } } });
  t.match((await mk({ starts_at: iso(H), ends_at: iso(2 * H) })).body.data, { status: 'upcoming', monitor_id: null });
  t.match((await mk({ starts_at: iso(-2 * H), ends_at: iso(-H) })).body.data, { status: 'expired' });
  t.equal((await s.req(s.a, 'GET', '/v1/alert-silences?status=active')).body.data.items.length, 1);
  t.match(await mk({ starts_at: iso(H), ends_at: iso(0) }), { status: 400, body: { error: { code: 'VALIDATION_FAILED', details: { fields: [{ path: 'ends_at' }] } } } });
  t.match(await mk({ starts_at: 'tomorrow', ends_at: iso(H) }), { status: 400 });
  t.match(await s.req(s.b, 'POST', '/v1/alert-silences', { monitor_id: s.m, starts_at: iso(0), ends_at: iso(H) }), { status: 404, body: { error: { code: 'MONITOR_NOT_FOUND' } } });
  const id = active.body.data.id;
  t.equal((await s.req(s.b, 'GET', `/v1/alert-silences/${id}`)).status, 404);
  t.equal((await s.req(s.b, 'DELETE', `/v1/alert-silences/${id}`)).status, 404);
  const ended = await s.req(s.a, 'PATCH', `/v1/alert-silences/${id}`, { ends_at: iso(-1000) });
  t.match(ended.body.data, { status: 'expired' }, 'ended early');
  t.match(await s.req(s.a, 'PATCH', `/v1/alert-silences/${id}`, { ends_at: iso(-10 * H) }), { status: 400 }, 'end before start refused');
  t.equal((await s.req(s.a, 'DELETE', `/v1/alert-silences/${id}`)).status, 200);
});

t.test('alert groups: group_by monitor_prefix/tag/type, duplicates refused, validation', async (t) => {
  const s = await setup(t);
  const g = await s.req(s.a, 'POST', '/v1/alert-groups', { name: 'Edge', group_by: 'tag', group_value: 'Edge', wait_seconds: 120 });
  t.match(g, { status: 201, body: { data: { group_by: 'tag', group_value: 'edge', wait_seconds: 120 } } });
  t.match(await s.req(s.a, 'POST', '/v1/alert-groups', { name: 'again', group_by: 'tag', group_value: 'edge' }), { status: 409, body: { error: { code: 'CONFLICT' } } });
  t.match(await s.req(s.a, 'POST', '/v1/alert-groups', { name: 'x', group_by: 'region', group_value: 'eu' }), { status: 400 });
  t.match(await s.req(s.a, 'POST', '/v1/alert-groups', { name: 'x', group_by: 'type', group_value: 'http', wait_seconds: 3601 }), { status: 400 });
  t.match((await s.req(s.a, 'POST', '/v1/alert-groups', { name: 'API', group_by: 'monitor_prefix', group_value: 'api-' })).body.data, { wait_seconds: 60 });
  t.match((await s.req(s.a, 'PATCH', `/v1/alert-groups/${g.body.data.id}`, { wait_seconds: 0 })).body.data, { wait_seconds: 0, group_value: 'edge' });
  t.equal((await s.req(s.b, 'PATCH', `/v1/alert-groups/${g.body.data.id}`, { wait_seconds: 5 })).status, 404);
  t.equal((await s.req(s.a, 'GET', '/v1/alert-groups')).body.data.items.length, 2);
  t.equal((await s.req(s.a, 'DELETE', `/v1/alert-groups/${g.body.data.id}`)).status, 200);
});

t.test('maintenance windows: scopes, recurrence, normalisation, every validation error', async (t) => {
  const s = await setup(t);
  const base = { starts_at: '2026-12-01T02:00:00Z', ends_at: '2026-12-01T03:00:00Z' };
  const all = await s.req(s.a, 'POST', '/v1/maintenance-windows', { ...base, scope_type: 'all', scope_ids: ['ignored'], recurrence_until: '2027-01-01T00:00:00Z' });
  t.match(all, { status: 201, body: { data: { scope_type: 'all', scope_ids: [], recurrence: 'none', recurrence_until: null, advance_notice_minutes: 0, title: null } } });
  const daily = await s.req(s.a, 'POST', '/v1/maintenance-windows', { ...base, title: 'Nightly', scope_type: 'tag', scope_ids: ['API', 'api'], recurrence: 'daily', recurrence_until: '2026-12-31T02:00:00Z', advance_notice_minutes: 60 });
  t.match(daily.body.data, { scope_ids: ['api'], recurrence: 'daily', recurrence_until: '2026-12-31T02:00:00.000Z', advance_notice_minutes: 60 });
  t.match(await s.req(s.a, 'POST', '/v1/maintenance-windows', { ...base, scope_type: 'monitor', scope_ids: [s.m] }), { status: 201 });
  const cases: Array<[object, string]> = [
    [{ ...base, scope_type: 'monitor', scope_ids: [] }, 'scope_ids'],
    [{ ...base }, 'scope_type'],
    [{ scope_type: 'all', starts_at: base.starts_at }, 'ends_at'],
    [{ ...base, scope_type: 'all', ends_at: base.starts_at }, 'ends_at'],
    [{ ...base, scope_type: 'all', recurrence: 'yearly' }, 'recurrence'],
    [{ ...base, scope_type: 'all', recurrence: 'daily', recurrence_until: '2026-11-30T00:00:00Z' }, 'recurrence_until'],
    [{ ...base, scope_type: 'all', advance_notice_minutes: 10081 }, 'advance_notice_minutes'],
    [{ ...base, scope_type: 'all', title: 'x'.repeat(201) }, 'title'],
    [{ ...base, scope_type: 'all', recurrence: 'daily', ends_at: '2026-12-02T03:00:00Z' }, 'ends_at'],
  ];
  for (const [body, path] of cases) {
    const r = await s.req(s.a, 'POST', '/v1/maintenance-windows', body);
    t.equal(r.status, 400, JSON.stringify(body));
    t.ok(r.body.error?.details?.fields?.some((f: { path: string }) => f.path === path), `names ${path}: ${JSON.stringify(r.body.error?.details)}`);
  }
  t.match(await s.req(s.b, 'POST', '/v1/maintenance-windows', { ...base, scope_type: 'monitor', scope_ids: [s.m] }), { status: 404, body: { error: { code: 'MONITOR_NOT_FOUND' } } });
  t.match(await s.req(s.a, 'POST', '/v1/maintenance-windows', { ...base, scope_type: 'group', scope_ids: ['mg_01jd3k6w9z4q8r2t7v5x1y3b6c'] }), { status: 404 });
  const id = daily.body.data.id;
  t.match(await s.req(s.a, 'PATCH', `/v1/maintenance-windows/${id}`, { recurrence: 'none' }), { status: 200, body: { data: { recurrence: 'none', recurrence_until: null } } });
  t.match(await s.req(s.a, 'PATCH', `/v1/maintenance-windows/${id}`, { scope_ids: [] }), { status: 400 }, 'checked whole after a PATCH');
  t.equal((await s.req(s.b, 'GET', `/v1/maintenance-windows/${id}`)).status, 404);
  t.equal((await s.req(s.a, 'GET', '/v1/maintenance-windows')).body.data.items.length, 3);
  t.equal((await s.req(s.a, 'DELETE', `/v1/maintenance-windows/${id}`)).status, 200);
});
