import t from 'tap';
import { createApp } from '../app.js';
import { call, createApiKey, registerUser, testApp } from '../test-support/app.js';

const WINDOW_S = 3600; // long window: the test never crosses a window boundary by accident

// Windows are aligned to the clock (the hour here): a file started in the last 30 s of an hour
// waits for the next one, so no test straddles a boundary and sees its counter reset.
const into_window_ms = Date.now() % (WINDOW_S * 1000);
if (into_window_ms > (WINDOW_S - 30) * 1000) await new Promise((r) => setTimeout(r, WINDOW_S * 1000 - into_window_ms + 500));

t.test('rate limit: per IP, per credential, shared by instances, docs/api/conventions.md headers', async (t) => {
  // Every request written at once (rate_limit_sync_ms 0): instances agree on each count.
  const { app, deps, url } = await testApp(t, { config: { rate_limit_anonymous: 3, rate_limit_keyed: 4, rate_limit_window_s: WINDOW_S, rate_limit_sync_ms: 0 } });

  t.test('anonymous callers are counted per source IP (real socket)', async (t) => {
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 4; i++) {
      last = await fetch(`${url}/v1/openapi.json`);
      statuses.push(last.status);
      if (i < 3) {
        t.equal(last.headers.get('x-ratelimit-limit'), '3');
        t.equal(last.headers.get('x-ratelimit-remaining'), String(2 - i));
        await last.arrayBuffer();
      }
    }
    t.same(statuses, [200, 200, 200, 429]);
    const body = (await last!.json()) as { error: { code: string } };
    t.equal(body.error.code, 'RATE_LIMIT_EXCEEDED');
    t.match(last!.headers.get('retry-after'), /^\d+$/);
    t.ok(Number(last!.headers.get('retry-after')) >= 1 && Number(last!.headers.get('retry-after')) <= WINDOW_S);
    t.equal(last!.headers.get('x-ratelimit-remaining'), '0');
    const reset = last!.headers.get('x-ratelimit-reset')!;
    t.equal(new Date(reset).toISOString(), reset, 'X-RateLimit-Reset is an ISO date-time');
    t.ok(Date.parse(reset) > Date.now() - 5000);
  });

  t.test('keyed callers are counted per credential, across instances', async (t) => {
    const user = await registerUser(app); // anonymous bucket 'unknown' (no socket in app.request)
    const a = await createApiKey(app, user.access_token); // session bucket: 1
    const b = await createApiKey(app, user.access_token); // session bucket: 2
    const second = createApp({ ...deps }); // another instance on the same database
    const seen: number[] = [];
    for (const instance of [app, second, app, second, app]) seen.push((await call(instance, 'GET', '/v1/account/profile', { token: a.key })).status);
    t.same(seen, [200, 200, 200, 200, 429], 'the fifth call with key a is refused whichever instance serves it');
    const other = await call(second, 'GET', '/v1/account/profile', { token: b.key });
    t.equal(other.status, 200, 'key b has its own bucket');
    t.equal(other.headers.get('x-ratelimit-remaining'), '3');
  });

  t.test('X-Forwarded-For is ignored unless trust_proxy is set', async (t) => {
    const res = await fetch(`${url}/v1/openapi.json`, { headers: { 'x-forwarded-for': '198.18.0.9' } });
    t.equal(res.status, 429, 'still the socket address, already over its limit');
    await res.arrayBuffer();
  });
});

t.test('counted in memory (rate_limit_sync_ms): one instance is exact; another learns the count within the interval', async (t) => {
  const { app, deps } = await testApp(t, { config: { rate_limit_keyed: 4, rate_limit_window_s: WINDOW_S, rate_limit_sync_ms: 50 } });
  const user = await registerUser(app);
  const a = await createApiKey(app, user.access_token);
  const statuses: number[] = [];
  const remaining: Array<string | null> = [];
  for (let i = 0; i < 5; i++) {
    const res = await call(app, 'GET', '/v1/account/profile', { token: a.key });
    statuses.push(res.status);
    remaining.push(res.headers.get('x-ratelimit-remaining'));
  }
  t.same(statuses, [200, 200, 200, 200, 429], 'the fifth call on the same instance is refused');
  t.same(remaining, ['3', '2', '1', '0', '0']);
  // The counts reach the shared row within the interval; another instance then reads it.
  const deadline = Date.now() + 30_000;
  let row: { count: number } | undefined;
  while (Date.now() < deadline) {
    [row] = await deps.sql<{ count: number }[]>`SELECT count FROM rate_limit_counters WHERE bucket LIKE 'cred:%' AND count >= 5`;
    if (row) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  t.equal(row?.count, 5, 'every request written, the refused one included');
  const second = createApp({ ...deps });
  t.equal((await call(second, 'GET', '/v1/account/profile', { token: a.key })).status, 429, 'another instance refuses it too');
});

t.test('trust_proxy: rightmost X-Forwarded-For is the client', async (t) => {
  const { url } = await testApp(t, { config: { rate_limit_anonymous: 1, rate_limit_window_s: WINDOW_S, trust_proxy: true } });
  const get = async (xff: string) => {
    const res = await fetch(`${url}/v1/openapi.json`, { headers: { 'x-forwarded-for': xff } });
    await res.arrayBuffer();
    return res.status;
  };
  t.equal(await get('198.18.0.1'), 200);
  t.equal(await get('198.18.0.1'), 429);
  t.equal(await get('198.18.0.2'), 200, 'another client address has its own bucket');
  t.equal(await get('198.18.0.1, 198.18.0.3'), 200, 'the rightmost entry counts (spoofed left entries do not)');
});

t.test('requests with refused credentials are counted per source IP (they never reach the per-credential limit)', async (t) => {
  const { app, url } = await testApp(t, { config: { rate_limit_invalid_credentials: 3, rate_limit_window_s: WINDOW_S, trust_proxy: true } });
  const user = await registerUser(app);
  const key = await createApiKey(app, user.access_token);
  const get = async (xff: string, token?: string) => {
    const res = await fetch(`${url}/v1/account/profile`, { headers: { 'x-forwarded-for': xff, ...(token ? { authorization: `Bearer ${token}` } : {}) } });
    return { status: res.status, headers: res.headers, body: (await res.json()) as { error?: { code: string } } };
  };
  const bad = 'sk_live_' + 'x'.repeat(40);
  const seen: number[] = [];
  for (let i = 0; i < 5; i++) seen.push((await get('198.18.5.1', bad)).status);
  t.same(seen, [401, 401, 401, 429, 429], 'the fourth refused credential from one address is 429');
  const limited = await get('198.18.5.1', bad);
  t.equal(limited.body.error?.code, 'RATE_LIMIT_EXCEEDED');
  t.ok(Number(limited.headers.get('retry-after')) >= 1, 'Retry-After in whole seconds');
  t.equal(limited.headers.get('x-ratelimit-limit'), '3');
  t.equal((await get('198.18.5.1', key.key)).status, 429, 'a valid credential from that address is refused too until the window ends (no guessing oracle)');
  t.equal((await get('198.18.5.1')).status, 401, 'a request without a credential is not affected (AUTH_REQUIRED from the route)');
  t.equal((await get('198.18.5.2', bad)).status, 401, 'another address has its own count');
  t.equal((await get('198.18.5.2', key.key)).status, 200, 'and its valid credentials work');
});
