import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import t from 'tap';
import { testApp } from '../test-support/app.js';
import { makeTestPki, startAuditServer, type Tap } from '@vantage/node-agent/test-support/ssl-audit-pki';

/*
 * GET /v1/info/ssl against real TLS servers on loopback: a test CA made with openssl (trusted
 * through VANTAGE_EXTRA_CA_FILE), servers offering chosen TLS versions, expired, wrong-name and
 * self-signed certificates, stapled OCSP responses and a certificate carrying SCTs.
 */

const pki = makeTestPki();
t.teardown(() => pki.cleanup());
const tlsServer = startAuditServer;

const setup = async (t: Tap, config: Record<string, unknown> = {}) => (await testApp(t, {
  config: { extra_ca_file: pki.ca_file, delivery_allow_cidrs: ['127.0.0.0/8', '::1/128'], lookup_timeout_ms: 3000, ...config },
})).app;

const audit = async (app: Awaited<ReturnType<typeof setup>>, q: string, port: number) => {
  const res = await app.request(`/v1/info/ssl?q=${encodeURIComponent(q)}&port=${port}`);
  return { status: res.status, headers: res.headers, body: await res.json() as { data: Record<string, any>; error?: Record<string, any> } };
};

t.test('a good certificate, TLS 1.2-1.3, stapled OCSP, HSTS: valid, every field, A+', async (t) => {
  const app = await setup(t);
  const port = await tlsServer(t, pki.good, { ocsp: pki.ocsp_good, hsts: 'max-age=31536000; includeSubDomains' });
  const { status, body } = await audit(app, 'LocalHost', port);
  t.equal(status, 200, 'audited');
  const d = body.data;
  t.match(d, {
    domain: 'localhost', port, subject: 'CN=localhost', issuer: 'O=Vantage Test, CN=Vantage Test CA', valid: true, validation_error: null,
    protocol: 'TLSv1.3', cipher_suite: /^TLS_/, ocsp_status: 'good', sct_count: 0, hsts_max_age_s: 31_536_000, grade: 'A+',
  });
  t.same(d.san_domains, ['localhost', 'www.localhost']);
  t.ok(d.days_until_expiry === 19 || d.days_until_expiry === 20, `days_until_expiry ${d.days_until_expiry}`);
  t.same(d.tls_versions, [{ version: 'TLSv1', supported: false }, { version: 'TLSv1.1', supported: false }, { version: 'TLSv1.2', supported: true }, { version: 'TLSv1.3', supported: true }]);
  t.match(d.chain[0], {
    subject: 'CN=localhost', signature_algorithm: 'ecdsa-with-SHA256', public_key_algorithm: 'ec', public_key_bits: 256,
    serial_number: '1001', fingerprint_sha256: /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/, is_ca: false,
  });
  t.equal(d.chain[0].not_after, d.not_after);
  t.notOk(d.warnings.some((w: string) => /OCSP|Strict-Transport/.test(w)), 'no stapling or HSTS warning');
});

t.test('TLS versions are tried one by one: a server of TLS 1.2 only, and one of TLS 1.0-1.3', async (t) => {
  const app = await setup(t);
  const only12 = await audit(app, 'localhost', await tlsServer(t, pki.good, { min: 'TLSv1.2', max: 'TLSv1.2' }));
  t.same(only12.body.data.tls_versions.map((v: { supported: boolean }) => v.supported), [false, false, true, false]);
  t.match(only12.body.data, { protocol: 'TLSv1.2', grade: 'A-', ocsp_status: 'none', hsts_max_age_s: null });
  t.ok(only12.body.data.warnings.includes('TLS 1.3 is not supported'));
  const all = await audit(app, 'localhost', await tlsServer(t, pki.good, { min: 'TLSv1', max: 'TLSv1.3' }));
  t.same(all.body.data.tls_versions.map((v: { supported: boolean }) => v.supported), [true, true, true, true]);
  t.equal(all.body.data.grade, 'B');
  t.ok(all.body.data.warnings.includes('TLS 1.0 is supported') && all.body.data.warnings.includes('TLS 1.1 is supported'));
});

t.test('expired, wrong-name and self-signed certificates are not valid and grade F', async (t) => {
  const app = await setup(t);
  const expired = await audit(app, 'localhost', await tlsServer(t, pki.expired));
  t.match(expired.body.data, { valid: false, validation_error: 'CERT_HAS_EXPIRED', grade: 'F' });
  t.ok(expired.body.data.days_until_expiry < 0);
  const wrong = await audit(app, 'localhost', await tlsServer(t, pki.wrong_name));
  t.match(wrong.body.data, { valid: false, validation_error: /^ERR_TLS_CERT_ALTNAME_INVALID: .*localhost.*other\.test/, grade: 'F', san_domains: ['other.test'] });
  const self = await audit(app, 'localhost', await tlsServer(t, pki.self_signed));
  t.match(self.body.data, { valid: false, validation_error: 'DEPTH_ZERO_SELF_SIGNED_CERT', grade: 'F' });
  t.equal(self.body.data.chain[0].subject, self.body.data.chain[0].issuer);
});

t.test('SCTs in the certificate are counted; a stapled "revoked" is read and grades F', async (t) => {
  const app = await setup(t);
  const scts = await audit(app, 'localhost', await tlsServer(t, pki.with_scts));
  t.match(scts.body.data, { sct_count: pki.sct_count, valid: true });
  const revoked = await audit(app, 'localhost', await tlsServer(t, pki.good, { ocsp: pki.ocsp_revoked }));
  t.match(revoked.body.data, { ocsp_status: 'revoked', grade: 'F' });
});

t.test('without the extra CA file the test CA is not trusted', async (t) => {
  const app = (await testApp(t, { config: { delivery_allow_cidrs: ['127.0.0.0/8', '::1/128'], lookup_timeout_ms: 3000 } })).app;
  const res = await audit(app, 'localhost', await tlsServer(t, pki.good));
  t.equal(res.status, 200, 'audited');
  t.match(res.body.data, { valid: false, validation_error: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', grade: 'F' });
});

t.test('bad q: 400 naming q; a silent host: 503 with Retry-After; a refused address: 422', async (t) => {
  const app = await setup(t, { lookup_timeout_ms: 500 });
  for (const q of ['https://example.com', '127.0.0.1', 'example.com/path', 'exa mple.com']) {
    const res = await audit(app, q, 443);
    t.equal(res.status, 400, q);
    t.match(res.body.error, { code: 'VALIDATION_FAILED' });
    t.match(JSON.stringify(res.body.error), /"q"/, `${q}: the error names q`);
  }
  t.equal((await app.request('/v1/info/ssl?q=localhost&port=70000')).status, 400);
  const silent = createTcpServer(() => {});
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  t.teardown(() => silent.close());
  const res = await audit(app, 'localhost', (silent.address() as AddressInfo).port);
  t.equal(res.status, 503);
  t.equal(res.headers.get('retry-after'), '30');
  t.match(res.body.error, { code: 'UNAVAILABLE', details: { timeout: true } });
  silent.close();
  const closed = (silent.address() as AddressInfo | null)?.port ?? 1;
  t.ok(closed > 0);
  const refusing = (await testApp(t, { config: { lookup_timeout_ms: 500 } })).app;
  const refused = await audit(refusing, 'localhost', await tlsServer(t, pki.good));
  t.equal(refused.status, 422);
  t.match(refused.body.error, { code: 'PROBE_TARGET_INVALID', message: /VANTAGE_DELIVERY_ALLOW_CIDRS/ });
});
