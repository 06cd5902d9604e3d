import net from 'node:net';
import t from 'tap';
import pino from 'pino';
import { httpOutputSchema, httpParamsSchema, type HttpParams } from '@vantage/shared-protocol';
import { createHttpProbe, httpProbe } from './http.js';
import { DEFAULT_POLICY, type TargetPolicy } from './target-policy.js';
import type { Probe, ProbeContext } from './types.js';
import { makeTestPki } from './test-support/certs.js';
import { startHttpServer } from './test-support/http-server.js';

const log = pino({ level: 'silent' });
const ALLOW: TargetPolicy = { allow_private: true, allow_cidrs: [] };
const ctx = (policy: TargetPolicy = ALLOW, signal = new AbortController().signal): ProbeContext => ({ signal, policy, log });
const params = (p: Partial<HttpParams> = {}): HttpParams => httpParamsSchema.parse(p);

async function run(probe: Probe<'http'>, target: string, p: Partial<HttpParams> = {}, policy: TargetPolicy = ALLOW) {
  const outcome = await probe.run(target, params(p), ctx(policy));
  httpOutputSchema.parse(outcome.output); // every outcome matches the wire shape
  return outcome;
}

t.test('http', async (t) => {
  const srv = await startHttpServer();
  t.teardown(() => srv.close());

  t.test('GET measures status, size, headers and every phase', async (t) => {
    const r = await run(httpProbe, `${srv.origin}/ok`);
    t.equal(r.success, true);
    t.equal(r.error, null);
    t.equal(r.output.status_code, 200);
    t.equal(r.output.response_size, 5);
    t.equal(r.output.final_url, `${srv.origin}/ok`);
    t.equal(r.output.resolved_address, '127.0.0.1');
    t.equal(r.output.headers['set-cookie'], 'a=1, b=2');
    t.equal(r.output.headers['x-multi'], 'one, two');
    t.ok(r.output.timing);
    t.equal(r.output.timing!.tls_ms, 0);
    t.equal(r.output.tls, null);
    t.equal(r.output.body_truncated, false);
    t.same(r.output.redirects, []);
  });

  t.test('the default policy refuses loopback before any request', async (t) => {
    const before = srv.seen.length;
    const r = await run(httpProbe, `${srv.origin}/ok`, {}, DEFAULT_POLICY);
    t.equal(r.success, false);
    t.equal(r.error_class, 'blocked');
    t.match(r.error, /127\.0\.0\.1/);
    t.equal(srv.seen.length, before);
  });

  t.test('redirects are followed hop by hop', async (t) => {
    const r = await run(httpProbe, `${srv.origin}/redirect/3`);
    t.equal(r.success, true);
    t.equal(r.output.final_url, `${srv.origin}/redirect/0`);
    t.same(r.output.redirects.map((h) => [h.url, h.status_code, h.location]), [
      [`${srv.origin}/redirect/3`, 302, '/redirect/2'],
      [`${srv.origin}/redirect/2`, 302, '/redirect/1'],
      [`${srv.origin}/redirect/1`, 302, '/redirect/0'],
    ]);
  });

  t.test('follow_redirects false reports the redirect itself', async (t) => {
    const r = await run(httpProbe, `${srv.origin}/redirect/2`, { follow_redirects: false });
    t.equal(r.success, true);
    t.equal(r.output.status_code, 302);
    t.equal(r.output.headers.location, '/redirect/1');
    t.same(r.output.redirects, []);
  });

  t.test('a redirect loop stops after 10 hops', async (t) => {
    const r = await run(httpProbe, `${srv.origin}/loop`);
    t.equal(r.success, false);
    t.equal(r.error_class, 'target');
    t.match(r.error, /more than 10 redirects/);
    t.equal(r.output.redirects.length, 11);
  });

  t.test('303 turns POST into GET, 307 keeps method and body', async (t) => {
    const see303 = await run(httpProbe, `${srv.origin}/to?code=303&url=/echo`, { method: 'POST', body: 'payload', headers: { 'content-type': 'text/plain' } });
    t.equal(see303.success, true);
    const after303 = srv.seen.at(-1)!;
    t.equal(after303.method, 'GET');
    t.equal(after303.body, '');
    const keep307 = await run(httpProbe, `${srv.origin}/to?code=307&url=/echo`, { method: 'POST', body: 'payload' });
    t.equal(keep307.success, true);
    const after307 = srv.seen.at(-1)!;
    t.equal(after307.method, 'POST');
    t.equal(after307.body, 'payload');
  });

  t.test('each redirect hop is checked against the policy', async (t) => {
    const onlyFirst: TargetPolicy = { allow_private: false, allow_cidrs: ['127.0.0.1/32'] };
    const r = await run(httpProbe, `${srv.origin}/to?url=${encodeURIComponent(`http://127.0.0.2:${srv.port}/ok`)}`, {}, onlyFirst);
    t.equal(r.success, false);
    t.equal(r.error_class, 'blocked');
    t.equal(r.output.redirects.length, 1);
    t.equal(r.output.final_url, `http://127.0.0.2:${srv.port}/ok`);
  });

  t.test('method, headers and body reach the server; Host stays the URL host', async (t) => {
    const r = await run(httpProbe, `http://localhost:${srv.port}/echo`, { method: 'PUT', headers: { 'X-Probe': 'yes' }, body: 'abc', ip_version: 'v4' });
    t.equal(r.success, true);
    const got = srv.seen.at(-1)!;
    t.equal(got.method, 'PUT');
    t.equal(got.headers['x-probe'], 'yes');
    t.equal(got.headers.host, `localhost:${srv.port}`);
    t.equal(got.body, 'abc');
  });

  t.test('a 5xx answer fails with class target', async (t) => {
    const r = await run(httpProbe, `${srv.origin}/status/503`);
    t.equal(r.success, false);
    t.equal(r.error_class, 'target');
    t.equal(r.output.status_code, 503);
  });

  t.test('a huge body is cut at the cap', async (t) => {
    const capped = createHttpProbe({ body_cap_bytes: 1024 * 1024 });
    const r = await run(capped, `${srv.origin}/huge`);
    t.equal(r.success, true);
    t.equal(r.output.body_truncated, true);
    t.ok(r.output.response_size! > 1024 * 1024);
    t.ok(r.output.response_size! < 4 * 1024 * 1024, 'stopped soon after the cap');
  });

  t.test('a slow server hits timeout_ms with the phases reached so far', async (t) => {
    const r = await run(httpProbe, `${srv.origin}/slow?ms=20000`, { timeout_ms: 1000 });
    t.equal(r.success, false);
    t.equal(r.error_class, 'timeout');
    t.equal(r.output.status_code, null);
    t.ok(r.output.timing, 'dns and tcp phases are reported');
    t.equal(r.output.resolved_address, '127.0.0.1');
  });

  t.test('a closed port is refused', async (t) => {
    const port = await closedPort();
    const r = await run(httpProbe, `http://127.0.0.1:${port}/`);
    t.equal(r.success, false);
    t.equal(r.error_class, 'refused');
  });

  t.test('bad targets are rejected, not thrown', async (t) => {
    const r = await run(httpProbe, 'ftp://example.test/');
    t.equal(r.error_class, 'rejected');
    const injected = { 'x-bad': 'a\r\nInjected: 1' };
    t.throws(() => params({ headers: injected }), /CR or LF/, 'the params schema refuses a header that injects another');
    // One that got past it (a control plane older than the rule) is rejected by the probe, not thrown.
    const h = await httpProbe.run(`${srv.origin}/ok`, { ...params(), headers: injected }, ctx());
    t.equal(h.success, false);
    t.equal(h.error_class, 'rejected');
  });
});

t.test('http over IPv6', async (t) => {
  const srv = await startHttpServer({ host: '::1' });
  t.teardown(() => srv.close());
  const r = await run(httpProbe, `http://[::1]:${srv.port}/ok`, { ip_version: 'v6' });
  t.equal(r.success, true);
  t.equal(r.output.resolved_address, '::1');
  const wrong = await run(httpProbe, `http://[::1]:${srv.port}/ok`, { ip_version: 'v4' });
  t.equal(wrong.success, false);
  t.equal(wrong.error_class, 'target');
});

t.test('https', async (t) => {
  const pki = await makeTestPki();
  const trusting = createHttpProbe({ ca: pki.ca.cert });
  const good = await startHttpServer({ tls: pki.leaf });
  const expired = await startHttpServer({ tls: pki.expired });
  const wrongName = await startHttpServer({ tls: pki.wrongName });
  t.teardown(() => Promise.all([good.close(), expired.close(), wrongName.close()]));

  t.test('a valid chain gives tls facts, certificate facts and a tls phase', async (t) => {
    const r = await run(trusting, `https://localhost:${good.port}/ok`, { ip_version: 'v4' });
    t.equal(r.success, true, r.error ?? '');
    t.equal(r.output.status_code, 200);
    t.match(r.output.tls, { version: /^TLSv1\.[23]$/, cipher: /\w+/ });
    t.equal(r.output.certificate!.subject, 'localhost');
    t.equal(r.output.certificate!.issuer, 'Vantage Test CA');
    t.ok(r.output.certificate!.days_left >= 363 && r.output.certificate!.days_left <= 365);
    t.ok(r.output.certificate!.san.includes('DNS:localhost'));
    t.ok(r.output.timing);
  });

  t.test('an IP URL is checked against the IP SAN', async (t) => {
    const r = await run(trusting, `https://127.0.0.1:${good.port}/ok`);
    t.equal(r.success, true, r.error ?? '');
  });

  t.test('an unknown CA is reported as a target error', async (t) => {
    const r = await run(httpProbe, `https://127.0.0.1:${good.port}/ok`);
    t.equal(r.success, false);
    t.equal(r.error_class, 'target');
    t.match(r.error, /certificate rejected: UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
    t.equal(r.output.certificate!.subject, 'localhost', 'facts are kept for a rejected certificate');
    t.equal(r.output.status_code, null);
  });

  t.test('an expired certificate is reported with negative days left', async (t) => {
    const r = await run(trusting, `https://127.0.0.1:${expired.port}/ok`);
    t.equal(r.success, false);
    t.equal(r.error_class, 'target');
    t.match(r.error, /CERT_HAS_EXPIRED/);
    t.ok(r.output.certificate!.days_left < 0);
  });

  t.test('a certificate for another name is rejected', async (t) => {
    const r = await run(trusting, `https://localhost:${wrongName.port}/ok`, { ip_version: 'v4' });
    t.equal(r.success, false);
    t.equal(r.error_class, 'target');
    t.match(r.error, /ALTNAME|Hostname/i);
  });
});

async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', () => resolve()));
  const { port } = s.address() as net.AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}
