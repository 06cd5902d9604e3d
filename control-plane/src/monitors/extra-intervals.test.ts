import t from 'tap';
import { loadConfig } from '../config/index.js';
import { call, registerUser, testApp } from '../test-support/app.js';

// The operator setting VANTAGE_MONITOR_EXTRA_INTERVALS_S (config/plans.ts): intervals accepted
// besides 60, 300 and 1800 s, e.g. 10 s rounds for a demo or a lab.

t.test('VANTAGE_MONITOR_EXTRA_INTERVALS_S is read as a list of seconds within the protocol bounds', async (t) => {
  t.same(loadConfig({}).monitor_extra_intervals_s, [], 'none by default');
  t.same(loadConfig({ VANTAGE_MONITOR_EXTRA_INTERVALS_S: '10, 30' }).monitor_extra_intervals_s, [10, 30]);
  t.throws(() => loadConfig({ VANTAGE_MONITOR_EXTRA_INTERVALS_S: '5' }), /VANTAGE_MONITOR_EXTRA_INTERVALS_S/, 'below the 10 s an assignment allows');
  t.throws(() => loadConfig({ VANTAGE_MONITOR_EXTRA_INTERVALS_S: 'fast' }), /VANTAGE_MONITOR_EXTRA_INTERVALS_S/);
});

t.test('an extra interval is accepted on create and PATCH; others still refused; browser keeps 300 s', async (t) => {
  const { app } = await testApp(t, { config: { monitor_extra_intervals_s: [10] } });
  const u = await registerUser(app);
  const post = (body: Record<string, unknown>) => call(app, 'POST', '/v1/monitors', { token: u.access_token, body });
  const fast = await post({ name: 'fast', type: 'tcp', target: '1.1.1.1:443', interval_s: 10 });
  t.equal(fast.status, 201, JSON.stringify(fast.body));
  t.equal(fast.body.data.interval_s, 10);
  const other = await post({ name: 'other', type: 'tcp', target: '1.1.1.1:443', interval_s: 20 });
  t.equal(other.status, 400);
  t.equal(other.body.error.code, 'MONITOR_INVALID_INTERVAL');
  t.match(other.body.error.message, /10, 60, 300, 1800/, 'the message lists what this deployment accepts');
  const browser = await post({ name: 'page', type: 'browser', target: 'https://1.1.1.1/', interval_s: 10 });
  t.equal(browser.body.error.code, 'MONITOR_INVALID_INTERVAL', 'browser monitors still run at most every 300 s');
  const slow = await post({ name: 'slow', type: 'ping', target: '1.1.1.1', interval_s: 60 });
  const patched = await call(app, 'PATCH', `/v1/monitors/${slow.body.data.id}`, { token: u.access_token, body: { interval_s: 10 } });
  t.equal(patched.status, 200);
  t.equal(patched.body.data.interval_s, 10);
});

t.test('without the setting, 10 s is refused', async (t) => {
  const { app } = await testApp(t);
  const u = await registerUser(app);
  const r = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { name: 'fast', type: 'tcp', target: '1.1.1.1:443', interval_s: 10 } });
  t.equal(r.status, 400);
  t.equal(r.body.error.code, 'MONITOR_INVALID_INTERVAL');
});
