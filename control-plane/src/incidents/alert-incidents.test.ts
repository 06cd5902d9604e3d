import t from 'tap';
import { newId } from '@vantage/shared-protocol';
import { insertEvent } from '../alerting/alert-events.db.js';
import { seedMonitor } from '../checks/test-support.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { syncAlertIncidents } from './alert-incidents.js';

/*
 * The alert policy option `incident_status_page_ids`: a firing event of the policy opens one
 * incident on those pages (on the component showing its monitor), shown on the public page; the
 * event resolving resolves it. Passes are idempotent; a page of another owner is refused.
 */

t.test('an alert event opens a status page incident and resolves it', async (t) => {
  const { app, sql, deps } = await testApp(t);
  const [alice, bob] = [await registerUser(app), await registerUser(app)];
  const monitor = (await seedMonitor(sql, { user_id: alice.user_id, nodes: 0, state: 'down' })).monitor_id;
  await sql`UPDATE monitors SET name = 'Checkout API' WHERE id = ${monitor}`;
  const page = (await call(app, 'POST', '/v1/status-pages', { token: alice.access_token, body: { slug: 'shop', title: 'Shop', components: [{ monitor_id: monitor }] } })).body.data;
  const bobPage = (await call(app, 'POST', '/v1/status-pages', { token: bob.access_token, body: { slug: 'bob', title: 'Bob' } })).body.data;

  let r = await call(app, 'POST', '/v1/alert-policies', { token: alice.access_token, body: { name: 'down', monitor_id: monitor, incident_status_page_ids: [bobPage.id] } });
  t.equal(r.status, 404);
  t.equal(r.body.error.code, 'STATUS_PAGE_NOT_FOUND', 'another owner\'s page');
  r = await call(app, 'POST', '/v1/alert-policies', { token: alice.access_token, body: { name: 'down', monitor_id: monitor, incident_status_page_ids: [page.id] } });
  t.equal(r.status, 201, JSON.stringify(r.body));
  t.same(r.body.data.incident_status_page_ids, [page.id]);
  const policy = r.body.data.id as string;
  t.same(await syncAlertIncidents(deps), { opened: 0, resolved: 0 }, 'no event: nothing');

  const now = new Date();
  const event_id = newId('alert_event');
  await insertEvent(sql, {
    id: event_id, user_id: alice.user_id, policy_id: policy, monitor_id: monitor, type: 'down', status: 'firing', started_at: new Date(now.getTime() - 120_000),
    fired_at: now, acknowledged_at: null, acknowledged_by: null, resolved_at: null, resolved_by: null, notified_at: null, next_level: null, next_due_at: null,
    suppressed: null, metadata: {},
  }, now);
  t.same(await syncAlertIncidents(deps), { opened: 1, resolved: 0 });
  t.same(await syncAlertIncidents(deps), { opened: 0, resolved: 0 }, 'once per event');
  r = await call(app, 'GET', '/v1/incidents', { token: alice.access_token });
  t.match(r.body.data.items, [{ title: 'Checkout API is down', status: 'investigating', impact: 'major', alert_event_id: event_id, status_page_ids: [page.id], component_ids: [page.components[0].id] }]);
  r = await call(app, 'GET', '/v1/public/status-pages/shop');
  t.match(r.body.data.active_incidents, [{ title: 'Checkout API is down' }], 'shown on the page');

  r = await call(app, 'POST', `/v1/alert-events/${event_id}/resolve`, { token: alice.access_token });
  t.equal(r.status, 200, JSON.stringify(r.body));
  t.same(await syncAlertIncidents(deps), { opened: 0, resolved: 1 });
  t.same(await syncAlertIncidents(deps), { opened: 0, resolved: 0 }, 'resolved once');
  r = await call(app, 'GET', '/v1/public/status-pages/shop');
  t.same(r.body.data.active_incidents, []);
  t.match(r.body.data.past_incidents, [{ status: 'resolved', updates: [{ status: 'resolved' }, { status: 'investigating' }] }]);
});
