import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import t, { type Test } from 'tap';
import pino from 'pino';
import { headersOutputSchema, headersParamsSchema } from '@vantage/shared-protocol';
import { createHeadersProbe } from './headers.js';
import { analyse, detectCdn, securityOf } from './headers/analysis.js';
import { DEFAULT_POLICY, type TargetPolicy } from './target-policy.js';
import { makeTestPki } from './test-support/certs.js';

const log = pino({ level: 'silent' });
const ALLOW: TargetPolicy = { allow_private: true, allow_cidrs: [] };
const ctx = (policy = ALLOW) => ({ signal: new AbortController().signal, policy, log });
const params = headersParamsSchema.parse({ timeout_ms: 5000 });

async function listen<S extends http.Server>(t: Test, server: S): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }));
  return (server.address() as AddressInfo).port;
}

t.test('the rubric on header maps', async (t) => {
  t.equal(detectCdn({ 'cf-ray': '8a-FRA' }), 'cloudflare');
  t.equal(detectCdn({ 'x-served-by': 'cache-fra-1', via: '1.1 varnish' }), 'fastly');
  t.equal(detectCdn({ server: 'nginx' }), undefined);
  t.same(securityOf({ server: 'nginx', 'x-frame-options': '', 'referrer-policy': 'no-referrer' }), { server: 'nginx', referrer_policy: 'no-referrer' }, 'empty values are left out');
  t.same(analyse('http://a.test/', 'http://a.test/', {}), { insecure: true, reasons: ['no_https_redirect', 'no_hsts', 'no_compression', 'no_cdn'] });
  t.same(analyse('http://a.test/', 'https://a.test/', { hsts: 'max-age=63072000', content_encoding: 'br', cdn: 'fastly' }), { insecure: false, reasons: [] });
  t.same(analyse('https://a.test/', 'https://a.test/', { content_encoding: 'identity' }), { insecure: true, reasons: ['no_hsts', 'no_compression', 'no_cdn'] });
});

t.test('an http URL redirected twice to an https site with HSTS, gzip and a CDN', async (t) => {
  const pki = await makeTestPki();
  const site = https.createServer({ key: pki.leaf.key, cert: pki.leaf.cert }, (req, res) => {
    const gz = /gzip/.test(String(req.headers['accept-encoding']));
    res.setHeader('strict-transport-security', 'max-age=63072000; includeSubDomains');
    res.setHeader('content-security-policy', "default-src 'self'");
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('x-frame-options', 'DENY');
    res.setHeader('cf-ray', '8e1f2a3b4c5d-FRA');
    res.setHeader('server', 'cloudflare');
    res.setHeader('set-cookie', ['a=1', 'b=2']);
    if (gz) res.setHeader('content-encoding', 'gzip');
    res.end(gz ? gzipSync('hello') : 'hello');
  });
  const sitePort = await listen(t, site);
  const front = http.createServer((req, res) => {
    res.writeHead(req.url === '/' ? 301 : 302, { location: req.url === '/' ? '/www' : `https://localhost:${sitePort}/` }).end();
  });
  const frontPort = await listen(t, front);
  const probe = createHeadersProbe({ ca: pki.ca.cert });
  const r = await probe.run(`http://127.0.0.1:${frontPort}/`, params, ctx());
  headersOutputSchema.parse(r.output);
  t.equal(r.success, true, r.error ?? '');
  t.equal(r.output.url, `http://127.0.0.1:${frontPort}/`);
  t.equal(r.output.final_url, `https://localhost:${sitePort}/`);
  t.same(r.output.hops, [
    { url: `http://127.0.0.1:${frontPort}/`, status_code: 301, location: '/www' },
    { url: `http://127.0.0.1:${frontPort}/www`, status_code: 302, location: `https://localhost:${sitePort}/` },
  ]);
  t.equal(r.output.headers['x-content-type-options'], 'nosniff', 'keys lower-cased');
  t.equal(r.output.headers['set-cookie'], 'a=1, b=2', 'repeated values joined');
  t.same(r.output.security, {
    cdn: 'cloudflare', content_encoding: 'gzip', csp: "default-src 'self'", hsts: 'max-age=63072000; includeSubDomains',
    server: 'cloudflare', x_content_type_options: 'nosniff', x_frame_options: 'DENY',
  });
  t.same(r.output.analysis, { insecure: false, reasons: [] });
  t.equal(r.output.status_code, 200);
});

t.test('a plain http site: all four reasons, insecure', async (t) => {
  const port = await listen(t, http.createServer((_req, res) => { res.setHeader('server', 'nginx'); res.end('plain'); }));
  const r = await createHeadersProbe().run(`http://127.0.0.1:${port}/`, params, ctx());
  t.equal(r.success, true, r.error ?? '');
  t.same(r.output.hops, []);
  t.same(r.output.security, { server: 'nginx' });
  t.same(r.output.analysis, { insecure: true, reasons: ['no_https_redirect', 'no_hsts', 'no_compression', 'no_cdn'] });
});

t.test('failures keep the shape: refused, policy', async (t) => {
  const gone = http.createServer();
  const port = await new Promise<number>((resolve) => gone.listen(0, '127.0.0.1', () => resolve((gone.address() as AddressInfo).port)));
  await new Promise<void>((resolve) => gone.close(() => resolve()));
  const refused = await createHeadersProbe().run(`http://127.0.0.1:${port}/`, params, ctx());
  headersOutputSchema.parse(refused.output);
  t.equal(refused.error_class, 'refused');
  t.equal(refused.output.status_code, null);
  const blocked = await createHeadersProbe().run(`http://127.0.0.1:${port}/`, params, ctx(DEFAULT_POLICY));
  t.equal(blocked.error_class, 'blocked');
});
