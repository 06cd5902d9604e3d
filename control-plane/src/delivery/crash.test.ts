import t from 'tap';
import { Webhook } from 'standardwebhooks';
import { controlPlaneProcess as controlPlane, freePort } from '../test-support/control-plane-process.js';
import { testDatabase } from '../test-support/db.js';
import { eventually, startReceiver, type Answer, type Received } from './test-support.js';

// Real control-plane processes start slowly on a loaded machine: the file may take longer than tap's default 120 s.
t.setTimeout(400_000);

async function api(base_url: string, method: string, path: string, token?: string, body?: unknown): Promise<any> {
  const res = await fetch(`${base_url}${path}`, {
    method, headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json() as { data?: unknown };
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

async function setup(t: { teardown(fn: () => unknown): void }, receiver_answer: (n: number, r: Received) => Answer, extra: Record<string, string> = {}) {
  const { url: database_url, sql } = await testDatabase(t);
  const port = await freePort();
  const base_url = `http://127.0.0.1:${port}`;
  const rx = await startReceiver(t, receiver_answer);
  const cp = controlPlane(t, {
    VANTAGE_DATABASE_URL: database_url, VANTAGE_HOST: '127.0.0.1', VANTAGE_PORT: String(port),
    VANTAGE_INSTANCE_ID: 'delivery-crash-test', VANTAGE_LOG_LEVEL: 'info', VANTAGE_DATA_DIR: '/tmp/vantage-delivery-crash',
    VANTAGE_DELIVERY_ALLOW_CIDRS: '127.0.0.0/8', VANTAGE_DELIVERY_POLL_INTERVAL_MS: '100',
    VANTAGE_RATE_LIMIT_KEYED: '100000', VANTAGE_RATE_LIMIT_ANONYMOUS: '100000',
    ...extra,
  });
  await cp.start(base_url);
  const auth = await api(base_url, 'POST', '/v1/auth/register', undefined, { email: `crash-${Date.now()}@example.test`, password: 'crash-test-password-1' });
  const created = await api(base_url, 'POST', '/v1/webhook-endpoints', auth.access_token, { url: rx.url, events: ['*'] });
  return { sql, base_url, rx, cp, token: auth.access_token as string, endpoint_id: created.endpoint.id as string, secret: created.secret as string };
}

t.test('kill -9 of the control plane mid-send loses nothing: after the restart the message is sent again with the same id', { timeout: 200_000 }, async (t) => {
  // The first request hangs (the control plane is killed while waiting for it); later ones succeed.
  const s = await setup(t, (n) => (n === 1 ? 'hang' : { status: 200 }), { VANTAGE_DELIVERY_TIMEOUT_MS: '60000' });
  const ping = await api(s.base_url, 'POST', `/v1/webhook-endpoints/${s.endpoint_id}/test`, s.token);
  const [first] = await s.rx.waitFor(1);
  await s.cp.kill9();
  const [row] = await s.sql<{ status: string; claimed_by: string | null }[]>`SELECT status, claimed_by FROM deliveries WHERE id = ${ping.id}`;
  t.match(row, { status: 'pending', claimed_by: 'delivery-crash-test' }, 'the claim of the killed process is still there');

  await s.cp.start(s.base_url);
  const got = await s.rx.waitFor(2, 60_000);
  t.equal(got[1]!.headers['webhook-id'], first!.headers['webhook-id'], 'the same webhook-id after the restart');
  t.ok(new Webhook(s.secret).verify(got[1]!.body, { 'webhook-id': String(got[1]!.headers['webhook-id']), 'webhook-timestamp': String(got[1]!.headers['webhook-timestamp']), 'webhook-signature': String(got[1]!.headers['webhook-signature']) }));
  const d = await eventually('delivery succeeded', async () => {
    const v = await api(s.base_url, 'GET', `/v1/webhook-endpoints/${s.endpoint_id}/deliveries/${ping.id}`, s.token);
    return v.status === 'succeeded' ? v : null;
  });
  t.match(d.attempts, [{ attempt: 1, outcome: 'interrupted' }, { attempt: 2, outcome: 'succeeded', status_code: 200 }], 'the cut attempt is in the log');
  await new Promise((r) => setTimeout(r, 500));
  t.equal(s.rx.received.length, 2, 'sent once more, not more');
});

t.test('a receiver down across a control-plane restart gets every message once it is back', { timeout: 200_000 }, async (t) => {
  const s = await setup(t, () => ({ status: 200 }), { VANTAGE_DELIVERY_RETRY_DELAYS_MS: '300,300,300,300,300,300,300,300,300,300,300,300,300,300,300,300,300,300,300,300' });
  const port = s.rx.port;
  await s.rx.close(); // the receiver is down: connections are refused
  const ids: string[] = [];
  for (let i = 0; i < 10; i++) ids.push((await api(s.base_url, 'POST', `/v1/webhook-endpoints/${s.endpoint_id}/test`, s.token)).id);
  await eventually('first attempts failed', async () => {
    const [row] = await s.sql<{ n: number }[]>`SELECT count(DISTINCT delivery_id)::int AS n FROM delivery_attempts WHERE outcome = 'failed'`;
    return row!.n >= 10 ? true : null;
  });
  await s.cp.kill9();

  // The receiver comes back on the same port while the control plane is down, then the control plane restarts.
  const back = await startReceiverOn(t, port);
  await s.cp.start(s.base_url);
  const got = await back.waitFor(10, 60_000);
  const delivered = new Set(got.map((r) => String(r.headers['webhook-id'])));
  t.equal(delivered.size, 10, 'every message arrived');
  await eventually('all succeeded', async () => {
    const [row] = await s.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM deliveries WHERE status = 'succeeded' AND id IN ${s.sql(ids)}`;
    return row!.n === 10 ? true : null;
  });
  const attempts = await s.sql<{ error: string | null }[]>`SELECT error FROM delivery_attempts WHERE outcome = 'failed' LIMIT 1`;
  t.match(attempts[0]!.error, /ECONNREFUSED/, 'the failed attempts are logged with their error');
});

/** A receiver on a given port (the one that was down), answering 200. */
async function startReceiverOn(t: { teardown(fn: () => unknown): void }, port: number) {
  const rx = await startReceiver(t, () => ({ status: 200 }), port);
  return rx;
}
