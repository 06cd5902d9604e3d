import t from 'tap';
import { createOutboundConnector } from './connector.js';
import { createOutboundHttp } from './http-client.js';
import { createOutboundPolicy, type OutboundPolicy } from './outbound-policy.js';
import { startReceiver } from './test-support.js';

/** A resolver that knows only the names of `table` (no system DNS: names like hook.test exist only here). */
function resolver(table: Record<string, string[] | (() => string[])>) {
  const calls: string[] = [];
  const resolve = async (host: string) => {
    calls.push(host);
    const v = table[host];
    if (!v) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return typeof v === 'function' ? v() : v;
  };
  return { resolve, calls };
}

const LOOPBACK = { probe_allow_cidrs: [], delivery_allow_cidrs: ['127.0.0.0/8'] };

/** The delivery client over a connector of `policy`, closed at teardown. */
function client(t: { teardown(fn: () => unknown): void }, policy: OutboundPolicy) {
  const connector = createOutboundConnector(policy);
  t.teardown(() => connector.close());
  return createOutboundHttp(connector);
}

t.test('a name is resolved by the policy and the connection goes to the checked address', async (t) => {
  const rx = await startReceiver(t);
  const r = resolver({ 'hook.test': ['127.0.0.1'] });
  const http = client(t, createOutboundPolicy(LOOPBACK, r.resolve));
  const res = await http.post(`http://hook.test:${rx.port}/x`, '{}', { 'content-type': 'application/json' }, { timeout_ms: 5000 });
  t.match(res, { kind: 'response', status_code: 200, response_body: 'ok' });
  t.same(r.calls, ['hook.test'], 'resolved once, by the policy (the system resolver does not know hook.test)');
  t.equal(rx.received[0]!.headers.host, `hook.test:${rx.port}`, 'the Host header keeps the name');
});

t.test('private addresses are refused before any connection, literal or resolved, even when the name answered publicly before', async (t) => {
  const rx = await startReceiver(t);
  let answer = ['198.51.100.7'];
  const r = resolver({ 'rebind.test': () => answer, 'mixed.test': ['93.184.216.34', '127.0.0.1'] });
  const http = client(t, createOutboundPolicy({ probe_allow_cidrs: [], delivery_allow_cidrs: [] }, r.resolve));
  answer = ['127.0.0.1']; // what the name resolves to now, at send time
  const cases = [`http://rebind.test:${rx.port}/`, `http://mixed.test:${rx.port}/`, `http://127.0.0.1:${rx.port}/`, `http://[::1]:${rx.port}/`, `http://localhost:${rx.port}/`, `http://[::ffff:7f00:1]:${rx.port}/`];
  for (const url of cases) {
    const res = await http.post(url, '{}', {}, { timeout_ms: 5000 });
    t.equal(res.kind, 'error', url);
    if (res.kind === 'error') {
      t.ok(res.refused, `${url}: refused by the policy`);
      t.match(res.error, /loopback.*VANTAGE_DELIVERY_ALLOW_CIDRS/, `${url}: the reason names the setting that opens it`);
    }
  }
  t.equal(rx.received.length, 0, 'the receiver saw nothing');
});

t.test('no redirect is followed; the answer is kept to 1 KB; a silent receiver times out', async (t) => {
  const target = await startReceiver(t);
  const rx = await startReceiver(t, (n) => (n === 1 ? { status: 302, body: '' } : n === 2 ? { status: 500, body: 'é'.repeat(3000) } : 'hang'));
  rx.server.prependListener('request', (_req, res) => res.setHeader('location', target.url));
  const http = client(t, createOutboundPolicy(LOOPBACK));
  t.match(await http.post(rx.url, '{}', {}, { timeout_ms: 5000 }), { kind: 'response', status_code: 302 });
  t.equal(target.received.length, 0, 'the redirect was not followed');
  const big = await http.post(rx.url, '{}', {}, { timeout_ms: 5000 });
  t.equal(big.kind === 'response' && Buffer.byteLength(big.response_body), 1024, 'first 1 KB of the body (3000 two-byte characters sent)');
  const slow = await http.post(rx.url, '{}', {}, { timeout_ms: 300 });
  t.match(slow, { kind: 'error', refused: false, error: /timeout/ });
  t.ok(slow.latency_ms >= 250 && slow.latency_ms < 5000, `bounded by the timeout (${slow.latency_ms} ms)`);
});

t.test('connection refused and unknown names are retriable errors, never throws', async (t) => {
  const rx = await startReceiver(t);
  const port = rx.port;
  await rx.close();
  const http = client(t, createOutboundPolicy(LOOPBACK, resolver({}).resolve));
  t.match(await http.post(`http://127.0.0.1:${port}/`, '{}', {}, { timeout_ms: 2000 }), { kind: 'error', refused: false, error: /ECONNREFUSED/ });
  t.match(await http.post('http://nowhere.test/', '{}', {}, { timeout_ms: 2000 }), { kind: 'error', refused: false, error: /does not resolve/ });
  t.match(await http.post('not a url', '{}', {}, { timeout_ms: 2000 }), { kind: 'error' });
});
